#include "perfdata/snapshot_builder.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "base/byte_order.h"
#include "perfdata/text_encoding.h"

namespace perfhive {
namespace {

namespace db = winperf::data_block;
namespace ot = winperf::object_type;
namespace cd = winperf::counter_definition;
namespace id = winperf::instance_definition;

constexpr uint32_t Align8(uint64_t n) { return static_cast<uint32_t>((n + 7) & ~uint64_t{7}); }

// Grows out by n zero bytes and returns the offset where they start.
size_t Grow(std::vector<uint8_t>& out, size_t n) {
  size_t at = out.size();
  out.resize(at + n, 0);
  return at;
}

std::vector<uint8_t> EncodeName(std::string_view name, uint32_t code_page) {
  std::vector<uint8_t> bytes =
      code_page == 0 ? Utf8ToUtf16Le(name) : std::vector<uint8_t>(name.begin(), name.end());
  bytes.resize(bytes.size() + (code_page == 0 ? 2 : 1), 0);  // the terminator
  return bytes;
}

}  // namespace

ObjectBuilder& ObjectBuilder::set_no_instances() {
  assert(instances_.empty());
  special_instances_ = winperf::kNoInstances;
  instances_.push_back(Instance{{}, winperf::kNoUniqueId, 0, 0, {}, {}, {}});
  instances_.back().values.resize(counters_.size());
  return *this;
}

ObjectBuilder& ObjectBuilder::set_metadata(int32_t num_instances) {
  assert(num_instances == winperf::kMetadataMultipleInstances ||
         num_instances == winperf::kMetadataNoInstances);
  instances_.clear();
  special_instances_ = num_instances;
  return *this;
}

uint32_t ObjectBuilder::AddCounter(const CounterSpec& spec) {
  counters_.push_back(spec);
  for (Instance& instance : instances_) instance.values.push_back(0);
  return static_cast<uint32_t>(counters_.size() - 1);
}

uint32_t ObjectBuilder::AddInstance(std::string_view name, int32_t unique_id,
                                    uint32_t parent_object_index, uint32_t parent_instance) {
  assert(special_instances_ == 0);
  instances_.push_back(
      Instance{std::string(name), unique_id, parent_object_index, parent_instance, {}, {}, {}});
  instances_.back().values.resize(counters_.size());
  return static_cast<uint32_t>(instances_.size() - 1);
}

ObjectBuilder::Instance& ObjectBuilder::InstanceAt(uint32_t instance) {
  if (instance >= instances_.size()) throw std::out_of_range("ObjectBuilder: no such instance");
  return instances_[instance];
}

void ObjectBuilder::SetValue(uint32_t instance, uint32_t counter, uint64_t value) {
  InstanceAt(instance).values.at(counter) = value;
}

void ObjectBuilder::SetBytes(uint32_t instance, uint32_t counter, std::span<const uint8_t> bytes) {
  if (counter >= counters_.size()) throw std::out_of_range("ObjectBuilder: no such counter");
  InstanceAt(instance).bytes[counter].assign(bytes.begin(), bytes.end());
}

void ObjectBuilder::SetMultiCount(uint32_t instance, uint32_t counter, uint32_t count) {
  if (counter >= counters_.size()) throw std::out_of_range("ObjectBuilder: no such counter");
  InstanceAt(instance).multi_counts[counter] = count;
}

uint32_t ObjectBuilder::SizeOf(uint32_t counter) const {
  const CounterSpec& spec = counters_[counter];
  if (spec.size != 0) return spec.size;
  switch (spec.type & winperf::kSizeMask) {
    case winperf::kSizeDword:
      return 4;
    case winperf::kSizeLarge:
      return 8;
    default:
      return 0;
  }
}

std::vector<uint32_t> ObjectBuilder::Layout(uint32_t* block_length) const {
  std::vector<uint32_t> offsets(counters_.size());
  uint64_t at = winperf::counter_block::kSize;
  for (uint32_t c = 0; c < counters_.size(); ++c) {
    uint32_t size = SizeOf(c);
    uint32_t alignment = size >= 8 ? 8 : size >= 4 ? 4 : 1;
    at = (at + alignment - 1) / alignment * alignment;
    offsets[c] = static_cast<uint32_t>(at);
    at += size;
    if (counters_[c].type & winperf::kMultiCounter) at += 4;  // the item count
  }
  *block_length = Align8(at);
  return offsets;
}

void ObjectBuilder::AppendTo(std::vector<uint8_t>& out) const {
  size_t start = Grow(out, ot::kSize);
  uint32_t definition_length = ot::kSize + cd::kSize * num_counters();
  uint32_t block_length = 0;
  std::vector<uint32_t> offsets = Layout(&block_length);

  for (uint32_t c = 0; c < counters_.size(); ++c) {
    const CounterSpec& spec = counters_[c];
    size_t at = Grow(out, cd::kSize);  // before data(): growing may move the buffer
    uint8_t* p = out.data() + at;
    StoreU32(p + cd::kByteLength, cd::kSize);
    StoreU32(p + cd::kCounterNameTitleIndex, spec.name_index);
    StoreU32(p + cd::kCounterHelpTitleIndex,
             spec.help_index != 0 ? spec.help_index : spec.name_index + 1);
    StoreI32(p + cd::kDefaultScale, spec.default_scale);
    StoreU32(p + cd::kDetailLevel, spec.detail_level);
    StoreU32(p + cd::kCounterType, spec.type);
    StoreU32(p + cd::kCounterSize, SizeOf(c));
    StoreU32(p + cd::kCounterOffset, offsets[c]);
  }

  bool has_definitions = special_instances_ == 0;
  for (const Instance& instance : instances_) {
    if (has_definitions) {
      std::vector<uint8_t> name = EncodeName(instance.name, code_page_);
      uint32_t byte_length = Align8(id::kSize + name.size());
      size_t at = Grow(out, byte_length);
      uint8_t* p = out.data() + at;
      StoreU32(p + id::kByteLength, byte_length);
      StoreU32(p + id::kParentObjectTitleIndex, instance.parent_object_index);
      StoreU32(p + id::kParentObjectInstance, instance.parent_instance);
      StoreI32(p + id::kUniqueID, instance.unique_id);
      StoreU32(p + id::kNameOffset, id::kSize);
      StoreU32(p + id::kNameLength, static_cast<uint32_t>(name.size()));
      std::copy(name.begin(), name.end(), p + id::kSize);
    }
    size_t block_at = Grow(out, block_length);
    uint8_t* block = out.data() + block_at;
    StoreU32(block, block_length);
    for (uint32_t c = 0; c < counters_.size(); ++c) {
      uint8_t* value = block + offsets[c];
      uint32_t size = SizeOf(c);
      if (auto text = instance.bytes.find(c); text != instance.bytes.end()) {
        std::copy_n(text->second.begin(), std::min<size_t>(size, text->second.size()), value);
      } else if (size == 4) {
        StoreU32(value, static_cast<uint32_t>(instance.values[c]));
      } else if (size >= 8) {
        StoreU64(value, instance.values[c]);
      }
      if (auto count = instance.multi_counts.find(c); count != instance.multi_counts.end()) {
        StoreU32(value + size, count->second);
      }
    }
  }

  uint32_t total = Align8(out.size() - start);
  out.resize(start + total, 0);
  uint8_t* p = out.data() + start;
  StoreU32(p + ot::kTotalByteLength, total);
  StoreU32(p + ot::kDefinitionLength, definition_length);
  StoreU32(p + ot::kHeaderLength, ot::kSize);
  StoreU32(p + ot::kObjectNameTitleIndex, name_index_);
  StoreU32(p + ot::kObjectHelpTitleIndex, help_index_ != 0 ? help_index_ : name_index_ + 1);
  StoreU32(p + ot::kDetailLevel, detail_level_);
  StoreU32(p + ot::kNumCounters, num_counters());
  StoreI32(p + ot::kDefaultCounter, default_counter_);
  StoreI32(p + ot::kNumInstances,
           special_instances_ != 0 ? special_instances_ : static_cast<int32_t>(instances_.size()));
  StoreU32(p + ot::kCodePage, code_page_);
  StoreI64(p + ot::kPerfTime, perf_time_);
  StoreI64(p + ot::kPerfFreq, perf_freq_);
}

ObjectBuilder& SnapshotBuilder::AddObject(uint32_t name_index) {
  return objects_.emplace_back(name_index);
}

std::vector<uint8_t> SnapshotBuilder::Build() const {
  std::vector<uint8_t> name = EncodeName(system_name_, 0);
  uint32_t header_length = Align8(db::kSize + name.size());
  std::vector<uint8_t> out(header_length, 0);
  for (const ObjectBuilder& object : objects_) object.AppendTo(out);

  uint8_t* p = out.data();
  const char16_t signature[4] = {u'P', u'E', u'R', u'F'};
  for (int i = 0; i < 4; ++i) StoreU16(p + db::kSignature + 2 * i, signature[i]);
  StoreU32(p + db::kLittleEndian, 1);
  StoreU32(p + db::kVersion, winperf::kDataVersion);
  StoreU32(p + db::kRevision, winperf::kDataRevision);
  uint32_t total = static_cast<uint32_t>(out.size());
  StoreU32(p + db::kTotalByteLength, total_excludes_header_ ? total - header_length : total);
  StoreU32(p + db::kHeaderLength, header_length);
  StoreU32(p + db::kNumObjectTypes, static_cast<uint32_t>(objects_.size()));
  StoreI32(p + db::kDefaultObject, default_object_);
  const uint16_t time_fields[8] = {
      system_time_.year, system_time_.month,  system_time_.day_of_week, system_time_.day,
      system_time_.hour, system_time_.minute, system_time_.second,      system_time_.milliseconds};
  for (int i = 0; i < 8; ++i) StoreU16(p + db::kSystemTime + 2 * i, time_fields[i]);
  StoreI64(p + db::kPerfTime, perf_time_);
  StoreI64(p + db::kPerfFreq, perf_freq_);
  StoreI64(p + db::kPerfTime100nSec, perf_time_100ns_);
  StoreU32(p + db::kSystemNameLength, static_cast<uint32_t>(name.size()));
  StoreU32(p + db::kSystemNameOffset, db::kSize);
  std::copy(name.begin(), name.end(), p + db::kSize);
  return out;
}

}  // namespace perfhive
