// SnapshotReader: a zero-copy, bounds-checked view over one raw PERF_DATA_BLOCK, the bytes
// that RegQueryValueExW(HKEY_PERFORMANCE_DATA, ...) returns.
//
// Open() checks every structure once (every offset and length, against the buffer and against
// its enclosing structure) and reports the first problem as an error naming the structure,
// the field and the byte offset. After a successful Open() the views below follow only offsets
// that were checked, so walking them cannot fail, read outside the buffer or allocate. The
// bytes are not copied: they must outlive the reader and every view taken from it.
//
// The layout and the checks are described in docs/snapshot_format.md.

#ifndef PERFHIVE_PERFDATA_SNAPSHOT_READER_H_
#define PERFHIVE_PERFDATA_SNAPSHOT_READER_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>

#include "base/byte_order.h"
#include "base/status.h"
#include "perfdata/winperf.h"

namespace perfhive {

// SYSTEMTIME of the data block, in UTC as Windows fills it.
struct SystemTime {
  uint16_t year = 0;
  uint16_t month = 0;
  uint16_t day_of_week = 0;
  uint16_t day = 0;
  uint16_t hour = 0;
  uint16_t minute = 0;
  uint16_t second = 0;
  uint16_t milliseconds = 0;
  bool operator==(const SystemTime&) const = default;
};

// One PERF_COUNTER_DEFINITION.
class CounterDefinitionView {
 public:
  CounterDefinitionView() = default;
  CounterDefinitionView(const uint8_t* base, uint32_t offset) : base_(base), offset_(offset) {}

  uint32_t byte_length() const { return Field(winperf::counter_definition::kByteLength); }
  uint32_t name_index() const { return Field(winperf::counter_definition::kCounterNameTitleIndex); }
  uint32_t help_index() const { return Field(winperf::counter_definition::kCounterHelpTitleIndex); }
  int32_t default_scale() const {
    return static_cast<int32_t>(Field(winperf::counter_definition::kDefaultScale));
  }
  uint32_t detail_level() const { return Field(winperf::counter_definition::kDetailLevel); }
  uint32_t type() const { return Field(winperf::counter_definition::kCounterType); }
  uint32_t size() const { return Field(winperf::counter_definition::kCounterSize); }
  uint32_t offset() const { return Field(winperf::counter_definition::kCounterOffset); }

  // Byte offset of this definition in the snapshot.
  uint32_t position() const { return offset_; }

 private:
  uint32_t Field(uint32_t at) const { return LoadU32(base_ + offset_ + at); }

  const uint8_t* base_ = nullptr;
  uint32_t offset_ = 0;
};

// One PERF_COUNTER_BLOCK: the values of one instance (or of an object without instances).
class CounterBlockView {
 public:
  CounterBlockView() = default;
  CounterBlockView(const uint8_t* base, uint32_t offset) : base_(base), offset_(offset) {}

  uint32_t byte_length() const { return LoadU32(base_ + offset_); }
  uint32_t position() const { return offset_; }

  // The counter's bytes, CounterSize of them at CounterOffset (checked by Open()).
  std::span<const uint8_t> Bytes(const CounterDefinitionView& counter) const {
    return {base_ + offset_ + counter.offset(), counter.size()};
  }

  // The counter's value as an unsigned integer read by its CounterSize: 4 bytes are
  // zero-extended, 8 bytes read whole. Other sizes (text, no data) have no numeric value.
  std::optional<uint64_t> Value(const CounterDefinitionView& counter) const {
    const uint8_t* p = base_ + offset_ + counter.offset();
    switch (counter.size()) {
      case 4:
        return LoadU32(p);
      case 8:
        return LoadU64(p);
      default:
        return std::nullopt;
    }
  }

  // A DWORD at any offset of the block, if it lies inside it (multi counters keep their item
  // count right after the value).
  std::optional<uint32_t> DwordAt(uint64_t offset_in_block) const {
    if (offset_in_block + 4 > byte_length()) return std::nullopt;
    return LoadU32(base_ + offset_ + offset_in_block);
  }

 private:
  const uint8_t* base_ = nullptr;
  uint32_t offset_ = 0;
};

// One instance of an object: a PERF_INSTANCE_DEFINITION and its counter block, or, for an
// object with PERF_NO_INSTANCES, just the single counter block (has_definition() false).
class InstanceView {
 public:
  InstanceView() = default;
  InstanceView(const uint8_t* base, std::optional<uint32_t> definition, uint32_t block)
      : base_(base), definition_(definition), block_(block) {}

  bool has_definition() const { return definition_.has_value(); }
  uint32_t byte_length() const { return Field(winperf::instance_definition::kByteLength); }
  uint32_t parent_object_index() const {
    return Field(winperf::instance_definition::kParentObjectTitleIndex);
  }
  uint32_t parent_instance() const {
    return Field(winperf::instance_definition::kParentObjectInstance);
  }
  int32_t unique_id() const {
    return has_definition() ? static_cast<int32_t>(Field(winperf::instance_definition::kUniqueID))
                            : winperf::kNoUniqueId;
  }
  // The name's raw bytes as stored (NameLength of them, which includes the terminator): UTF-16LE
  // when the object's CodePage is 0, else in that code page. Empty for an unnamed instance.
  std::span<const uint8_t> raw_name() const {
    if (!has_definition()) return {};
    uint32_t length = Field(winperf::instance_definition::kNameLength);
    if (length == 0) return {};
    return {base_ + *definition_ + Field(winperf::instance_definition::kNameOffset), length};
  }

  CounterBlockView counters() const { return CounterBlockView(base_, block_); }
  // Byte offset of the instance definition (or of the block) in the snapshot.
  uint32_t position() const { return definition_.value_or(block_); }

 private:
  uint32_t Field(uint32_t at) const {
    return has_definition() ? LoadU32(base_ + *definition_ + at) : 0;
  }

  const uint8_t* base_ = nullptr;
  std::optional<uint32_t> definition_;
  uint32_t block_ = 0;
};

// Forward iteration over structures laid one after another, each located from the previous
// through the Step's Make (the view at an offset) and Next (the offset of the next structure).
template <typename View, typename Step>
class StructRange {
 public:
  class iterator {
   public:
    using value_type = View;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(const uint8_t* base, Step step, uint32_t offset, uint32_t remaining)
        : base_(base), step_(step), offset_(offset), remaining_(remaining) {}
    View operator*() const { return step_.Make(base_, offset_); }
    iterator& operator++() {
      offset_ = step_.Next(base_, offset_);
      --remaining_;
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    bool operator==(const iterator& other) const { return remaining_ == other.remaining_; }

   private:
    const uint8_t* base_ = nullptr;
    Step step_{};
    uint32_t offset_ = 0;
    uint32_t remaining_ = 0;
  };

  StructRange(const uint8_t* base, Step step, uint32_t first, uint32_t count)
      : base_(base), step_(step), first_(first), count_(count) {}
  iterator begin() const { return iterator(base_, step_, first_, count_); }
  iterator end() const { return iterator(base_, step_, 0, 0); }
  uint32_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

 private:
  const uint8_t* base_;
  Step step_;
  uint32_t first_;
  uint32_t count_;
};

struct CounterDefinitionStep {
  CounterDefinitionView Make(const uint8_t* base, uint32_t offset) const {
    return CounterDefinitionView(base, offset);
  }
  uint32_t Next(const uint8_t* base, uint32_t offset) const {
    return offset + LoadU32(base + offset + winperf::counter_definition::kByteLength);
  }
};

// Instances are a definition followed by a counter block; an object with PERF_NO_INSTANCES has
// only the block (without_definition).
struct InstanceStep {
  bool without_definition = false;

  InstanceView Make(const uint8_t* base, uint32_t offset) const {
    if (without_definition) return InstanceView(base, std::nullopt, offset);
    return InstanceView(base, offset, BlockOf(base, offset));
  }
  uint32_t Next(const uint8_t* base, uint32_t offset) const {
    uint32_t block = without_definition ? offset : BlockOf(base, offset);
    return block + LoadU32(base + block + winperf::counter_block::kByteLength);
  }
  static uint32_t BlockOf(const uint8_t* base, uint32_t offset) {
    return offset + LoadU32(base + offset + winperf::instance_definition::kByteLength);
  }
};

using CounterDefinitionRange = StructRange<CounterDefinitionView, CounterDefinitionStep>;
using InstanceRange = StructRange<InstanceView, InstanceStep>;

// One PERF_OBJECT_TYPE with its counter definitions and instances.
class ObjectView {
 public:
  ObjectView() = default;
  ObjectView(const uint8_t* base, uint32_t offset) : base_(base), offset_(offset) {}

  uint32_t total_byte_length() const { return Field(winperf::object_type::kTotalByteLength); }
  uint32_t definition_length() const { return Field(winperf::object_type::kDefinitionLength); }
  uint32_t header_length() const { return Field(winperf::object_type::kHeaderLength); }
  uint32_t name_index() const { return Field(winperf::object_type::kObjectNameTitleIndex); }
  uint32_t help_index() const { return Field(winperf::object_type::kObjectHelpTitleIndex); }
  uint32_t detail_level() const { return Field(winperf::object_type::kDetailLevel); }
  uint32_t num_counters() const { return Field(winperf::object_type::kNumCounters); }
  int32_t default_counter() const {
    return static_cast<int32_t>(Field(winperf::object_type::kDefaultCounter));
  }
  // As stored: a count, or kNoInstances / kMetadataMultipleInstances / kMetadataNoInstances.
  int32_t num_instances() const {
    return static_cast<int32_t>(Field(winperf::object_type::kNumInstances));
  }
  uint32_t code_page() const { return Field(winperf::object_type::kCodePage); }
  int64_t perf_time() const { return LoadI64(base_ + offset_ + winperf::object_type::kPerfTime); }
  int64_t perf_freq() const { return LoadI64(base_ + offset_ + winperf::object_type::kPerfFreq); }

  // False for metadata objects (NumInstances −2/−3), which carry definitions but no values.
  bool has_data() const { return num_instances() >= winperf::kNoInstances; }
  // True for objects that have an instance list (possibly empty).
  bool has_instance_list() const { return num_instances() >= 0; }

  CounterDefinitionRange counters() const {
    return CounterDefinitionRange(base_, {}, offset_ + header_length(), num_counters());
  }
  // The instances; an object with PERF_NO_INSTANCES yields one view without a definition, a
  // metadata object yields none.
  InstanceRange instances() const {
    int32_t count = num_instances();
    uint32_t first = offset_ + definition_length();
    if (count == winperf::kNoInstances) return InstanceRange(base_, {true}, first, 1);
    return InstanceRange(base_, {false}, first, count < 0 ? 0 : static_cast<uint32_t>(count));
  }

  uint32_t position() const { return offset_; }

 private:
  uint32_t Field(uint32_t at) const { return LoadU32(base_ + offset_ + at); }

  const uint8_t* base_ = nullptr;
  uint32_t offset_ = 0;
};

struct ObjectStep {
  ObjectView Make(const uint8_t* base, uint32_t offset) const { return ObjectView(base, offset); }
  uint32_t Next(const uint8_t* base, uint32_t offset) const {
    return offset + LoadU32(base + offset + winperf::object_type::kTotalByteLength);
  }
};
using ObjectRange = StructRange<ObjectView, ObjectStep>;

class SnapshotReader {
 public:
  // Checks the whole snapshot. The bytes must stay alive and unchanged while the reader and its
  // views are used.
  static Result<SnapshotReader> Open(std::span<const uint8_t> bytes);

  uint32_t version() const { return Field(winperf::data_block::kVersion); }
  uint32_t revision() const { return Field(winperf::data_block::kRevision); }
  uint32_t total_byte_length() const { return Field(winperf::data_block::kTotalByteLength); }
  uint32_t header_length() const { return Field(winperf::data_block::kHeaderLength); }
  uint32_t num_objects() const { return Field(winperf::data_block::kNumObjectTypes); }
  int32_t default_object() const {
    return static_cast<int32_t>(Field(winperf::data_block::kDefaultObject));
  }
  SystemTime system_time() const;
  int64_t perf_time() const { return LoadI64(data() + winperf::data_block::kPerfTime); }
  int64_t perf_freq() const { return LoadI64(data() + winperf::data_block::kPerfFreq); }
  int64_t perf_time_100ns() const {
    return LoadI64(data() + winperf::data_block::kPerfTime100nSec);
  }
  // The computer's name as UTF-8 (allocates; for display, not for walking values).
  std::string system_name() const;

  ObjectRange objects() const { return ObjectRange(data(), {}, header_length(), num_objects()); }
  // The first object with this title index, if any.
  std::optional<ObjectView> FindObject(uint32_t name_index) const;

  std::span<const uint8_t> bytes() const { return bytes_; }

 private:
  explicit SnapshotReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  const uint8_t* data() const { return bytes_.data(); }
  uint32_t Field(uint32_t at) const { return LoadU32(data() + at); }

  std::span<const uint8_t> bytes_;
};

// The instance's name as UTF-8, decoded from UTF-16 or the object's code page, up to the first
// NUL. Empty for an instance without a name.
std::string InstanceName(const ObjectView& object, const InstanceView& instance);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_SNAPSHOT_READER_H_
