#include "agent/spool_format.h"

#include <string_view>

#include "base/byte_order.h"

namespace perfhive {
namespace {

// Version 2 records carry their owner; version 1 records (agents before it) do not, and read
// back with an empty owner.
constexpr std::string_view kRecordMagic = "PHSPOOL2";
constexpr std::string_view kRecordMagicV1 = "PHSPOOL1";
constexpr std::string_view kTitlesMagic = "PHTITLE1";

// Appends little-endian fields.
class FieldWriter {
 public:
  void Bytes(std::span<const uint8_t> bytes) {
    out_.insert(out_.end(), bytes.begin(), bytes.end());
  }
  void Text(std::string_view text) { out_.insert(out_.end(), text.begin(), text.end()); }
  void U32(uint32_t value) {
    uint8_t field[4];
    StoreU32(field, value);
    Bytes(field);
  }
  void U64(uint64_t value) {
    uint8_t field[8];
    StoreU64(field, value);
    Bytes(field);
  }
  void SizedText(std::string_view text) {
    U32(static_cast<uint32_t>(text.size()));
    Text(text);
  }
  void SizedBytes(std::span<const uint8_t> bytes) {
    U64(bytes.size());
    Bytes(bytes);
  }
  std::vector<uint8_t>& out() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

// Reads the fields FieldWriter wrote, checking each length against what is left.
class FieldReader {
 public:
  explicit FieldReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool Take(size_t size, std::span<const uint8_t>& out) {
    if (size > bytes_.size() - pos_) return false;
    out = bytes_.subspan(pos_, size);
    pos_ += size;
    return true;
  }
  bool U32(uint32_t& value) {
    std::span<const uint8_t> field;
    if (!Take(4, field)) return false;
    value = LoadU32(field.data());
    return true;
  }
  bool U64(uint64_t& value) {
    std::span<const uint8_t> field;
    if (!Take(8, field)) return false;
    value = LoadU64(field.data());
    return true;
  }
  bool SizedText(std::string& text) {
    uint32_t size;
    std::span<const uint8_t> field;
    if (!U32(size) || !Take(size, field)) return false;
    text.assign(field.begin(), field.end());
    return true;
  }
  bool SizedBytes(std::vector<uint8_t>& bytes) {
    uint64_t size;
    std::span<const uint8_t> field;
    if (!U64(size) || size > bytes_.size() || !Take(static_cast<size_t>(size), field)) {
      return false;
    }
    bytes.assign(field.begin(), field.end());
    return true;
  }
  bool Magic(std::string_view magic) {
    std::span<const uint8_t> field;
    return Take(magic.size(), field) &&
           std::string_view(reinterpret_cast<const char*>(field.data()), field.size()) == magic;
  }
  // Whether the bytes at the current position are `magic`, without taking them.
  bool StartsWith(std::string_view magic) const {
    return bytes_.size() - pos_ >= magic.size() &&
           std::equal(magic.begin(), magic.end(), bytes_.begin() + static_cast<long>(pos_));
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<uint8_t> EncodeSpoolRecord(const SnapshotRecord& record) {
  FieldWriter writer;
  writer.out().reserve(record.raw.size() + 256);
  writer.Text(kRecordMagic);
  writer.SizedText(record.owner.host.name);
  writer.SizedText(record.owner.host.os);
  writer.SizedText(record.owner.host.os_version);
  writer.U32(record.owner.agentless ? 1 : 0);
  writer.SizedText(record.instance_id);
  writer.U64(record.sequence);
  writer.SizedText(record.query);
  writer.U32(static_cast<uint32_t>(record.titles.size()));
  for (const TitleRef& title : record.titles) {
    writer.SizedText(title.language);
    writer.Bytes(title.sha256);
  }
  writer.SizedBytes(record.raw);
  Sha256Digest digest = Sha256(writer.out());
  writer.Bytes(digest);
  return std::move(writer.out());
}

Result<SnapshotRecord> DecodeSpoolRecord(std::span<const uint8_t> bytes) {
  if (bytes.size() < kRecordMagic.size() + 32) {
    return Status::DataLoss("spool record is torn: only " + std::to_string(bytes.size()) +
                            " bytes");
  }
  std::span<const uint8_t> body = bytes.first(bytes.size() - 32);
  Sha256Digest digest = Sha256(body);
  if (!std::equal(digest.begin(), digest.end(), bytes.end() - 32)) {
    return Status::DataLoss("spool record is torn or damaged: its SHA-256 does not match");
  }
  FieldReader reader(body);
  SnapshotRecord record;
  uint32_t title_count = 0;
  uint32_t agentless = 0;
  bool ok;
  if (reader.StartsWith(kRecordMagicV1)) {
    ok = reader.Magic(kRecordMagicV1);
  } else {
    ok = reader.Magic(kRecordMagic) && reader.SizedText(record.owner.host.name) &&
         reader.SizedText(record.owner.host.os) && reader.SizedText(record.owner.host.os_version) &&
         reader.U32(agentless) && agentless <= 1;
    record.owner.agentless = agentless == 1;
  }
  ok = ok && reader.SizedText(record.instance_id) && reader.U64(record.sequence) &&
       reader.SizedText(record.query) && reader.U32(title_count) && title_count <= 16;
  for (uint32_t i = 0; ok && i < title_count; ++i) {
    TitleRef title;
    std::span<const uint8_t> sha;
    ok = reader.SizedText(title.language) && reader.Take(title.sha256.size(), sha);
    if (ok) std::copy(sha.begin(), sha.end(), title.sha256.begin());
    record.titles.push_back(std::move(title));
  }
  ok = ok && reader.SizedBytes(record.raw) && reader.AtEnd();
  if (!ok) return Status::DataLoss("spool record has a checksum but not the expected fields");
  return record;
}

std::vector<uint8_t> EncodeSpoolTitles(const TitleBytes& titles) {
  FieldWriter writer;
  writer.Text(kTitlesMagic);
  writer.SizedText(titles.language);
  writer.SizedBytes(titles.counters);
  writer.SizedBytes(titles.helps);
  return std::move(writer.out());
}

Result<TitleBytes> DecodeSpoolTitles(std::span<const uint8_t> bytes) {
  FieldReader reader(bytes);
  TitleBytes titles;
  if (!reader.Magic(kTitlesMagic) || !reader.SizedText(titles.language) ||
      !reader.SizedBytes(titles.counters) || !reader.SizedBytes(titles.helps) || !reader.AtEnd()) {
    return Status::DataLoss("spooled title database is torn");
  }
  return titles;
}

}  // namespace perfhive
