// SnapshotBuilder: writes a valid PERF_DATA_BLOCK with any objects, counters, instances (with
// parents), values and times, laid out as Windows lays it out: every structure 8-byte aligned,
// counter values at their natural alignment in the counter block, instance names in UTF-16
// right after the instance definition. Used by the Linux source, by tests and for fuzz seeds.

#ifndef PERFHIVE_PERFDATA_SNAPSHOT_BUILDER_H_
#define PERFHIVE_PERFDATA_SNAPSHOT_BUILDER_H_

#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "perfdata/snapshot_reader.h"
#include "perfdata/winperf.h"

namespace perfhive {

// One counter definition as the builder should write it.
struct CounterSpec {
  uint32_t name_index = 0;
  uint32_t type = winperf::kCounterRawcount;
  // 0: the size the type's size bits name (4, 8, or 0 for PERF_SIZE_ZERO). Variable-length
  // (text) counters must give their size. A size other than the nominal one (a producer writing
  // 8 bytes for a DWORD type) is written as given.
  uint32_t size = 0;
  uint32_t help_index = 0;  // 0: name_index + 1, as Windows numbers help texts
  int32_t default_scale = 0;
  uint32_t detail_level = winperf::kDetailNovice;
};

// One object being built; get it from SnapshotBuilder::AddObject.
class ObjectBuilder {
 public:
  explicit ObjectBuilder(uint32_t name_index) : name_index_(name_index) {}

  ObjectBuilder& set_help_index(uint32_t index) {
    help_index_ = index;
    return *this;
  }
  ObjectBuilder& set_detail_level(uint32_t level) {
    detail_level_ = level;
    return *this;
  }
  ObjectBuilder& set_default_counter(int32_t counter) {
    default_counter_ = counter;
    return *this;
  }
  // 0 (the default) writes instance names in UTF-16; any other code page writes the names'
  // bytes as given.
  ObjectBuilder& set_code_page(uint32_t code_page) {
    code_page_ = code_page;
    return *this;
  }
  ObjectBuilder& set_perf_time(int64_t time) {
    perf_time_ = time;
    return *this;
  }
  ObjectBuilder& set_perf_freq(int64_t freq) {
    perf_freq_ = freq;
    return *this;
  }
  // An object without instances (PERF_NO_INSTANCES) has one counter block, instance 0.
  ObjectBuilder& set_no_instances();
  // A metadata object (NumInstances −2 or −3): definitions, no values.
  ObjectBuilder& set_metadata(int32_t num_instances);

  // Returns the counter's position among the object's definitions.
  uint32_t AddCounter(const CounterSpec& spec);
  // Returns the instance's position in the object (what children name as ParentObjectInstance).
  uint32_t AddInstance(std::string_view name, int32_t unique_id = winperf::kNoUniqueId,
                       uint32_t parent_object_index = 0, uint32_t parent_instance = 0);

  // Values are written in the counter's size (truncated to 32 bits for 4-byte counters).
  void SetValue(uint32_t instance, uint32_t counter, uint64_t value);
  // Raw bytes for variable-length (text) counters; padded with zeros or cut to the size.
  void SetBytes(uint32_t instance, uint32_t counter, std::span<const uint8_t> bytes);
  // The item count that PERF_MULTI_COUNTER types keep in the DWORD after their value.
  void SetMultiCount(uint32_t instance, uint32_t counter, uint32_t count);

  uint32_t name_index() const { return name_index_; }
  uint32_t num_counters() const { return static_cast<uint32_t>(counters_.size()); }
  uint32_t num_instances() const { return static_cast<uint32_t>(instances_.size()); }

 private:
  friend class SnapshotBuilder;

  struct Instance {
    std::string name;
    int32_t unique_id;
    uint32_t parent_object_index;
    uint32_t parent_instance;
    std::vector<uint64_t> values;                    // by counter
    std::map<uint32_t, std::vector<uint8_t>> bytes;  // text counters
    std::map<uint32_t, uint32_t> multi_counts;
  };
  Instance& InstanceAt(uint32_t instance);
  uint32_t SizeOf(uint32_t counter) const;
  // Offsets of the counters in the counter block and the block's ByteLength.
  std::vector<uint32_t> Layout(uint32_t* block_length) const;
  void AppendTo(std::vector<uint8_t>& out) const;

  uint32_t name_index_;
  uint32_t help_index_ = 0;
  uint32_t detail_level_ = winperf::kDetailNovice;
  int32_t default_counter_ = -1;
  uint32_t code_page_ = 0;
  int64_t perf_time_ = 0;
  int64_t perf_freq_ = 0;
  int32_t special_instances_ = 0;  // 0, or kNoInstances / kMetadata*
  std::vector<CounterSpec> counters_;
  std::vector<Instance> instances_;
};

class SnapshotBuilder {
 public:
  SnapshotBuilder& set_system_name(std::string_view name) {
    system_name_ = name;
    return *this;
  }
  SnapshotBuilder& set_system_time(const SystemTime& time) {
    system_time_ = time;
    return *this;
  }
  SnapshotBuilder& set_perf_time(int64_t time) {
    perf_time_ = time;
    return *this;
  }
  SnapshotBuilder& set_perf_freq(int64_t freq) {
    perf_freq_ = freq;
    return *this;
  }
  SnapshotBuilder& set_perf_time_100ns(int64_t time) {
    perf_time_100ns_ = time;
    return *this;
  }
  SnapshotBuilder& set_default_object(int32_t index) {
    default_object_ = index;
    return *this;
  }
  // Write TotalByteLength without the header, as Samba does (Windows includes it).
  SnapshotBuilder& set_total_length_excludes_header(bool excludes) {
    total_excludes_header_ = excludes;
    return *this;
  }

  // The reference stays valid for the builder's lifetime.
  ObjectBuilder& AddObject(uint32_t name_index);

  std::vector<uint8_t> Build() const;

 private:
  std::string system_name_;
  SystemTime system_time_;
  int64_t perf_time_ = 0;
  int64_t perf_freq_ = 10'000'000;
  int64_t perf_time_100ns_ = 0;
  int32_t default_object_ = 238;
  bool total_excludes_header_ = false;
  std::deque<ObjectBuilder> objects_;
};

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_SNAPSHOT_BUILDER_H_
