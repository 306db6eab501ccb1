#include "agent/hkpd_reader.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "agent/windows_error.h"
#include "perfdata/byte_order.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {
namespace {

constexpr char kPerflibKey[] = "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib";

std::string Quote(std::string_view text) { return "\"" + std::string(text) + "\""; }

}  // namespace

HkpdReader::HkpdReader(RegistryApi& api, RegistryKey key, std::string where,
                       HkpdReaderOptions options)
    : api_(api),
      key_(key),
      where_(std::move(where)),
      options_(std::move(options)),
      buffer_bytes_(std::max<uint32_t>(options_.initial_buffer_bytes, 1024)) {
  if (!options_.sleep)
    options_.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
}

Result<std::vector<uint8_t>> HkpdReader::QueryValue(RegistryKey key, const std::string& name,
                                                    bool is_snapshot, uint32_t* type) {
  uint32_t size = is_snapshot ? buffer_bytes_ : 16 * 1024;
  int busy = 0;
  std::vector<uint8_t> buffer;
  last_error_code_ = 0;
  for (;;) {
    buffer.resize(size);
    uint32_t got = size;
    long rc = api_.QueryValue(key, name, buffer.data(), &got, type);
    // A reply that fills the buffer exactly may be cut short (Samba's "Global" never says
    // ERROR_MORE_DATA): treat it as "more data" while we may still grow.
    bool full = is_snapshot && rc == win_error::kSuccess && got == size;
    if (rc == win_error::kMoreData || (full && size < options_.max_buffer_bytes)) {
      if (size >= options_.max_buffer_bytes) {
        return Status::Error(where_ + " " + Quote(name) + ": the reply needs more than " +
                             std::to_string(options_.max_buffer_bytes) +
                             " bytes, the buffer ceiling");
      }
      size =
          static_cast<uint32_t>(std::min<uint64_t>(uint64_t{size} * 2, options_.max_buffer_bytes));
      continue;
    }
    if (rc == win_error::kBusy) {
      if (++busy > options_.busy_retries) {
        last_error_code_ = rc;
        return Status::Error(where_ + " " + Quote(name) + ": still busy after " +
                             std::to_string(options_.busy_retries) + " retries (" +
                             DescribeWindowsError(rc) + ")");
      }
      options_.sleep(options_.busy_delay);
      continue;
    }
    if (rc != win_error::kSuccess) {
      last_error_code_ = rc;
      return Status::Error(where_ + " " + Quote(name) + ": RegQueryValueExW failed with " +
                           DescribeWindowsError(rc));
    }
    if (got > size) {
      return Status::Error(where_ + " " + Quote(name) + ": RegQueryValueExW reported " +
                           std::to_string(got) + " bytes in a " + std::to_string(size) +
                           "-byte buffer");
    }
    buffer.resize(got);
    if (is_snapshot) buffer_bytes_ = size;
    return buffer;
  }
}

Result<std::vector<uint8_t>> HkpdReader::ReadSnapshot(std::string_view query) {
  if (query.empty()) return Status::Error(where_ + ": empty query (use \"Global\")");
  uint32_t type = 0;
  Result<std::vector<uint8_t>> bytes = QueryValue(key_, std::string(query), true, &type);
  if (!bytes.ok()) return bytes;
  if (Result<SnapshotReader> check = SnapshotReader::Open(*bytes); !check.ok()) {
    return Status::Error(where_ + " " + Quote(query) +
                         " returned a malformed block: " + check.error());
  }
  return bytes;
}

Result<TitleBytes> HkpdReader::ReadTitles(std::optional<RegistryKey> local_machine) {
  TitleBytes titles;
  uint32_t type = 0;
  Result<std::vector<uint8_t>> counters = QueryValue(key_, "Counter 009", false, &type);
  Result<std::vector<uint8_t>> helps = QueryValue(key_, "Help 009", false, &type);
  if (counters.ok() && helps.ok()) {
    titles.counters = std::move(counters).value();
    titles.helps = std::move(helps).value();
    return titles;
  }
  std::string first_error = counters.ok() ? helps.error() : counters.error();
  if (!local_machine) return Status::Error(first_error);
  RegistryKey perflib = 0;
  std::string subkey = std::string(kPerflibKey) + "\\009";
  if (long rc = api_.OpenKey(*local_machine, subkey, &perflib); rc != win_error::kSuccess) {
    return Status::Error(first_error + "; HKEY_LOCAL_MACHINE\\" + subkey +
                         ": RegOpenKeyExW failed with " + DescribeWindowsError(rc));
  }
  counters = QueryValue(perflib, "Counter", false, &type);
  helps = QueryValue(perflib, "Help", false, &type);
  api_.CloseKey(perflib);
  if (!counters.ok()) return counters.status();
  if (!helps.ok()) return helps.status();
  titles.counters = std::move(counters).value();
  titles.helps = std::move(helps).value();
  return titles;
}

TitleVersion HkpdReader::ReadTitleVersion(RegistryKey local_machine) {
  TitleVersion version;
  RegistryKey perflib = 0;
  if (api_.OpenKey(local_machine, kPerflibKey, &perflib) != win_error::kSuccess) return version;
  auto read_dword = [&](const char* name) -> std::optional<uint32_t> {
    uint8_t value[4];
    uint32_t size = sizeof value;
    uint32_t type = 0;
    if (api_.QueryValue(perflib, name, value, &size, &type) != win_error::kSuccess ||
        type != kRegDword || size != 4) {
      return std::nullopt;
    }
    return LoadU32(value);
  };
  version.last_counter = read_dword("Last Counter");
  version.last_help = read_dword("Last Help");
  api_.CloseKey(perflib);
  return version;
}

uint64_t TitleDigest(const TitleBytes& titles) {
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&](const std::vector<uint8_t>& bytes) {
    for (uint8_t b : bytes) hash = (hash ^ b) * 1099511628211ull;
    hash = (hash ^ 0xFF) * 1099511628211ull;  // separates the two lists
  };
  mix(titles.counters);
  mix(titles.helps);
  return hash;
}

}  // namespace perfhive
