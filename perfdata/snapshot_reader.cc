#include "perfdata/snapshot_reader.h"

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "perfdata/text_encoding.h"

namespace perfhive {
namespace {

namespace db = winperf::data_block;
namespace ot = winperf::object_type;
namespace cd = winperf::counter_definition;
namespace id = winperf::instance_definition;

// The smallest an instance can be: its definition and a counter block's ByteLength.
constexpr uint64_t kMinInstanceBytes = id::kSize + winperf::counter_block::kSize;

// Where a problem was found, spelled out only when there is a problem to report.
struct Where {
  const char* structure;  // e.g. "instance"
  int64_t number;         // −1: the structure is not numbered
  uint64_t offset;
  const Where* parent = nullptr;

  std::string ToString() const {
    std::string text = parent ? parent->ToString() + ", " : std::string();
    char part[96];
    if (number >= 0) {
      std::snprintf(part, sizeof part, "%s %" PRId64 " at byte %" PRIu64, structure, number,
                    offset);
    } else {
      std::snprintf(part, sizeof part, "%s at byte %" PRIu64, structure, offset);
    }
    return text + part;
  }
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
Status
Fail(const Where& where, const char* format, ...) {
  char text[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return Status::Error(where.ToString() + ": " + text);
}

// Checks one object: its header, counter definitions and instances, all inside
// [offset, offset + TotalByteLength), which the caller has checked lies inside the block.
class ObjectChecker {
 public:
  ObjectChecker(std::span<const uint8_t> bytes, uint32_t number, uint32_t offset)
      : bytes_(bytes), offset_(offset), where_{"object", number, offset} {}

  Status Check() {
    const uint8_t* p = bytes_.data() + offset_;
    uint32_t total = LoadU32(p + ot::kTotalByteLength);
    uint32_t definition_length = LoadU32(p + ot::kDefinitionLength);
    uint32_t header_length = LoadU32(p + ot::kHeaderLength);
    uint32_t num_counters = LoadU32(p + ot::kNumCounters);
    int32_t num_instances = LoadI32(p + ot::kNumInstances);
    end_ = uint64_t{offset_} + total;

    if (header_length < ot::kSize) {
      return Fail(where_, "HeaderLength %u is smaller than PERF_OBJECT_TYPE (%u bytes)",
                  header_length, ot::kSize);
    }
    if (definition_length < header_length) {
      return Fail(where_, "DefinitionLength %u is smaller than HeaderLength %u", definition_length,
                  header_length);
    }
    if (definition_length > total) {
      return Fail(where_, "DefinitionLength %u exceeds TotalByteLength %u", definition_length,
                  total);
    }
    if (num_instances < winperf::kMetadataNoInstances) {
      return Fail(where_, "NumInstances %d is not a count nor -1, -2 or -3", num_instances);
    }
    if (Status s = CheckDefinitions(header_length, definition_length, num_counters); !s.ok()) {
      return s;
    }
    if (num_instances < winperf::kNoInstances) return Status();  // metadata: no values follow
    uint64_t at = uint64_t{offset_} + definition_length;
    if (num_instances == winperf::kNoInstances) {
      return CheckCounterBlock(at, Where{"counter block", -1, at, &where_}).status();
    }
    if (uint64_t{static_cast<uint32_t>(num_instances)} * kMinInstanceBytes > end_ - at) {
      return Fail(where_, "NumInstances %d cannot fit in the %" PRIu64 " bytes left of the object",
                  num_instances, end_ - at);
    }
    for (int32_t i = 0; i < num_instances; ++i) {
      Result<uint64_t> next = CheckInstance(static_cast<uint32_t>(i), at);
      if (!next.ok()) return next.status();
      at = *next;
    }
    return Status();
  }

 private:
  Status CheckDefinitions(uint32_t header_length, uint32_t definition_length,
                          uint32_t num_counters) {
    uint64_t at = uint64_t{offset_} + header_length;
    uint64_t definitions_end = uint64_t{offset_} + definition_length;
    if (uint64_t{num_counters} * cd::kSize > definitions_end - at) {
      return Fail(where_, "NumCounters %u cannot fit in DefinitionLength %u", num_counters,
                  definition_length);
    }
    for (uint32_t c = 0; c < num_counters; ++c) {
      Where where{"counter definition", c, at, &where_};
      if (at + cd::kSize > definitions_end) {
        return Fail(where, "runs past DefinitionLength %u of the object", definition_length);
      }
      const uint8_t* p = bytes_.data() + at;
      uint32_t byte_length = LoadU32(p + cd::kByteLength);
      if (byte_length < cd::kSize) {
        return Fail(where, "ByteLength %u is smaller than PERF_COUNTER_DEFINITION (%u bytes)",
                    byte_length, cd::kSize);
      }
      if (at + byte_length > definitions_end) {
        return Fail(where, "ByteLength %u runs past DefinitionLength %u of the object", byte_length,
                    definition_length);
      }
      uint64_t value_end =
          uint64_t{LoadU32(p + cd::kCounterOffset)} + LoadU32(p + cd::kCounterSize);
      if (value_end > max_value_end_) {
        max_value_end_ = value_end;
        widest_counter_ = c;
      }
      at += byte_length;
    }
    return Status();
  }

  // Returns the offset just past the block.
  Result<uint64_t> CheckCounterBlock(uint64_t at, const Where& where) {
    if (at + winperf::counter_block::kSize > end_) {
      return Fail(where, "does not fit in the object (ends at byte %" PRIu64 ")", end_);
    }
    uint32_t byte_length = LoadU32(bytes_.data() + at);
    if (byte_length < winperf::counter_block::kSize) {
      return Fail(where, "ByteLength %u is smaller than PERF_COUNTER_BLOCK (4 bytes)", byte_length);
    }
    if (at + byte_length > end_) {
      return Fail(where, "ByteLength %u runs past the end of the object (byte %" PRIu64 ")",
                  byte_length, end_);
    }
    if (max_value_end_ > byte_length) {
      return Fail(where,
                  "ByteLength %u is too short for counter %u (CounterOffset+CounterSize %" PRIu64
                  ")",
                  byte_length, widest_counter_, max_value_end_);
    }
    return at + byte_length;
  }

  Result<uint64_t> CheckInstance(uint32_t number, uint64_t at) {
    Where where{"instance", number, at, &where_};
    if (at + id::kSize > end_) {
      return Fail(where, "does not fit in the object (ends at byte %" PRIu64 ")", end_);
    }
    const uint8_t* p = bytes_.data() + at;
    uint32_t byte_length = LoadU32(p + id::kByteLength);
    uint32_t name_offset = LoadU32(p + id::kNameOffset);
    uint32_t name_length = LoadU32(p + id::kNameLength);
    if (byte_length < id::kSize) {
      return Fail(where, "ByteLength %u is smaller than PERF_INSTANCE_DEFINITION (%u bytes)",
                  byte_length, id::kSize);
    }
    if (at + byte_length > end_) {
      return Fail(where, "ByteLength %u runs past the end of the object (byte %" PRIu64 ")",
                  byte_length, end_);
    }
    if (name_length != 0 &&
        (name_offset < id::kSize || uint64_t{name_offset} + name_length > byte_length)) {
      return Fail(where, "name (NameOffset %u, NameLength %u) lies outside the instance's %u bytes",
                  name_offset, name_length, byte_length);
    }
    uint64_t block = at + byte_length;
    return CheckCounterBlock(block, Where{"counter block", -1, block, &where});
  }

  std::span<const uint8_t> bytes_;
  uint32_t offset_;
  Where where_;
  uint64_t end_ = 0;
  uint64_t max_value_end_ = 0;  // the largest CounterOffset + CounterSize of the definitions
  uint32_t widest_counter_ = 0;
};

}  // namespace

Result<SnapshotReader> SnapshotReader::Open(std::span<const uint8_t> bytes) {
  const Where where{"data block", -1, 0};
  const uint64_t size = bytes.size();
  if (size < db::kSize) {
    return Fail(where, "%" PRIu64 " bytes are fewer than PERF_DATA_BLOCK needs (%u)", size,
                db::kSize);
  }
  if (size > UINT32_MAX) {
    return Fail(where, "%" PRIu64 " bytes are more than a DWORD length can describe", size);
  }
  const uint8_t* p = bytes.data();
  static constexpr uint8_t kSignature[8] = {'P', 0, 'E', 0, 'R', 0, 'F', 0};
  if (!std::equal(std::begin(kSignature), std::end(kSignature), p)) {
    return Fail(where, "Signature is not \"PERF\" in UTF-16");
  }
  if (LoadU32(p + db::kLittleEndian) != 1) {
    return Fail(where, "LittleEndian is %u; only little-endian data is supported",
                LoadU32(p + db::kLittleEndian));
  }
  uint32_t total = LoadU32(p + db::kTotalByteLength);
  uint32_t header_length = LoadU32(p + db::kHeaderLength);
  uint32_t num_objects = LoadU32(p + db::kNumObjectTypes);
  uint32_t name_length = LoadU32(p + db::kSystemNameLength);
  uint32_t name_offset = LoadU32(p + db::kSystemNameOffset);
  if (header_length < db::kSize) {
    return Fail(where, "HeaderLength %u is smaller than PERF_DATA_BLOCK (%u bytes)", header_length,
                db::kSize);
  }
  if (header_length > size) {
    return Fail(where, "HeaderLength %u exceeds the %" PRIu64 " bytes available", header_length,
                size);
  }
  if (total > size) {
    return Fail(where, "TotalByteLength %u exceeds the %" PRIu64 " bytes available (truncated?)",
                total, size);
  }
  if (name_length != 0 && uint64_t{name_offset} + name_length > size) {
    return Fail(where,
                "system name (SystemNameOffset %u, SystemNameLength %u) lies outside the "
                "%" PRIu64 " bytes available",
                name_offset, name_length, size);
  }
  // Windows counts the header in TotalByteLength, some producers (Samba) do not: accept objects
  // up to HeaderLength + TotalByteLength, never past the buffer.
  uint64_t end = std::min<uint64_t>(bytes.size(), uint64_t{header_length} + total);
  if (uint64_t{num_objects} * ot::kSize > end - header_length) {
    return Fail(where, "NumObjectTypes %u cannot fit in the %" PRIu64 " bytes after the header",
                num_objects, end - header_length);
  }
  uint64_t at = header_length;
  for (uint32_t i = 0; i < num_objects; ++i) {
    Where object_where{"object", i, at};
    if (at + ot::kSize > end) {
      return Fail(object_where, "PERF_OBJECT_TYPE runs past the end of the data (byte %" PRIu64 ")",
                  end);
    }
    uint32_t object_length = LoadU32(p + at + ot::kTotalByteLength);
    if (object_length < ot::kSize) {
      return Fail(object_where, "TotalByteLength %u is smaller than PERF_OBJECT_TYPE (%u bytes)",
                  object_length, ot::kSize);
    }
    if (at + object_length > end) {
      return Fail(object_where,
                  "TotalByteLength %u runs past the end of the data (byte %" PRIu64 ")",
                  object_length, end);
    }
    if (Status s = ObjectChecker(bytes, i, static_cast<uint32_t>(at)).Check(); !s.ok()) return s;
    at += object_length;
  }
  return SnapshotReader(bytes);
}

SystemTime SnapshotReader::system_time() const {
  const uint8_t* p = data() + db::kSystemTime;
  return SystemTime{LoadU16(p),     LoadU16(p + 2),  LoadU16(p + 4),  LoadU16(p + 6),
                    LoadU16(p + 8), LoadU16(p + 10), LoadU16(p + 12), LoadU16(p + 14)};
}

std::string SnapshotReader::system_name() const {
  uint32_t length = Field(db::kSystemNameLength);
  if (length == 0) return {};
  return Utf16LeToUtf8(bytes_.subspan(Field(db::kSystemNameOffset), length));
}

std::optional<ObjectView> SnapshotReader::FindObject(uint32_t name_index) const {
  for (ObjectView object : objects()) {
    if (object.name_index() == name_index) return object;
  }
  return std::nullopt;
}

std::string InstanceName(const ObjectView& object, const InstanceView& instance) {
  std::span<const uint8_t> raw = instance.raw_name();
  if (object.code_page() == 0) return Utf16LeToUtf8(raw);
  return CodePageToUtf8(raw, object.code_page());
}

}  // namespace perfhive
