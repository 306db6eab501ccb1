#include "sources/hkpd/hkpd_reader.h"

#include <algorithm>
#include <span>
#include <utility>

#include "base/byte_order.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/text_encoding.h"
#include "perfdata/title_database.h"
#include "perfdata/title_list.h"
#include "sources/hkpd/provider_scan.h"
#include "sources/hkpd/registry_values.h"
#include "sources/hkpd/windows_error.h"

namespace perfhive {
namespace {

constexpr char kPerformanceData[] = "HKEY_PERFORMANCE_DATA";
constexpr char kPerformanceNlsText[] = "HKEY_PERFORMANCE_NLSTEXT";
constexpr char kPerflibKey[] = "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib";
constexpr char kCurrentVersionKey[] = "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion";
constexpr char kComputerNameKey[] =
    "SYSTEM\\CurrentControlSet\\Control\\ComputerName\\ActiveComputerName";

std::string Quote(std::string_view text) { return "\"" + std::string(text) + "\""; }

}  // namespace

HkpdReader::HkpdReader(RegistryApi& api, Env& env, RegistryKey performance_data,
                       std::optional<RegistryKey> local_machine, std::string machine,
                       HkpdReaderOptions options)
    : api_(api),
      env_(env),
      performance_data_(performance_data),
      local_machine_(local_machine),
      machine_(std::move(machine)),
      options_(std::move(options)),
      snapshot_buffer_bytes_(std::clamp<uint32_t>(
          options_.initial_buffer_bytes, 1, std::max<uint32_t>(options_.max_buffer_bytes, 1))),
      title_buffer_bytes_(snapshot_buffer_bytes_) {}

std::string HkpdReader::Where(std::string_view key_name) const {
  return machine_.empty() ? std::string(key_name) : machine_ + "\\" + std::string(key_name);
}

Result<std::vector<uint8_t>> HkpdReader::QueryValue(RegistryKey key, std::string_view key_name,
                                                    const std::string& value_name, ValueKind kind) {
  uint32_t& remembered =
      kind == ValueKind::kSnapshot ? snapshot_buffer_bytes_ : title_buffer_bytes_;
  uint32_t size = remembered;
  std::string what = Where(key_name) + " " + Quote(value_name);
  int busy = 0;
  std::vector<uint8_t> buffer;
  last_error_code_ = 0;
  for (;;) {
    buffer.resize(size);
    uint32_t got = size;
    uint32_t type = 0;
    long rc = api_.QueryValue(key, value_name, buffer.data(), &got, &type);
    // Samba answers "Global" with success and a block cut to the buffer, so a snapshot that
    // fills the buffer exactly may be incomplete. On Windows this costs one more call in the
    // rare case of an exact fit.
    bool may_be_cut = kind == ValueKind::kSnapshot && rc == win_error::kSuccess && got == size;
    if (rc == win_error::kMoreData || may_be_cut) {
      if (size >= options_.max_buffer_bytes) {
        return Status::Error(what + ": the reply needs more than " +
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
        return Status::Error(what + ": still busy after " + std::to_string(options_.busy_retries) +
                             " retries (" + DescribeWindowsError(rc) + ")");
      }
      env_.SleepFor(options_.busy_delay);
      continue;
    }
    if (rc != win_error::kSuccess) {
      last_error_code_ = rc;
      return Status::Error(what + ": RegQueryValueExW failed with " + DescribeWindowsError(rc));
    }
    if (got > size) {
      return Status::Error(what + ": RegQueryValueExW reported " + std::to_string(got) +
                           " bytes in a " + std::to_string(size) + "-byte buffer");
    }
    buffer.resize(got);
    remembered = size;
    return buffer;
  }
}

Result<std::vector<uint8_t>> HkpdReader::ReadSnapshot(std::string_view query) {
  if (query.empty())
    return Status::Error(Where(kPerformanceData) + ": empty query (use \"Global\")");
  Result<std::vector<uint8_t>> bytes =
      QueryValue(performance_data_, kPerformanceData, std::string(query), ValueKind::kSnapshot);
  if (!bytes.ok()) return bytes;
  if (Result<SnapshotReader> check = SnapshotReader::Open(*bytes); !check.ok()) {
    return Status::Error(Where(kPerformanceData) + " " + Quote(query) +
                         " returned a malformed block: " + check.error());
  }
  return bytes;
}

Result<std::vector<uint8_t>> HkpdReader::QueryTitleList(RegistryKey key, std::string_view key_name,
                                                        const std::string& value_name,
                                                        bool is_help) {
  Result<std::vector<uint8_t>> bytes = QueryValue(key, key_name, value_name, ValueKind::kTitleList);
  if (!bytes.ok()) return bytes;
  std::string what = Where(key_name) + " " + Quote(value_name);
  // A performance key answers a value name it does not know as a data query (Wine does so for
  // "Explain 009"): the reply is then a data block, which must not pass for titles.
  if (bytes->size() >= 8 && Utf16LeToUtf8(std::span(*bytes).first(8)) == "PERF") {
    return Status::Error(what + ": returned performance data, not a title list");
  }
  TitleDatabase parsed;
  if (Status status = ParseTitleList(*bytes, is_help, parsed); !status.ok()) {
    return Status::Error(what + ": not a title list: " + status.message());
  }
  return bytes;
}

Result<TitleBytes> HkpdReader::ReadPerformanceKeyTitles() {
  Result<std::vector<uint8_t>> counters =
      QueryTitleList(performance_data_, kPerformanceData, "Counter 009", false);
  if (!counters.ok()) return counters.status();
  Result<std::vector<uint8_t>> helps =
      QueryTitleList(performance_data_, kPerformanceData, "Help 009", true);
  if (!helps.ok()) {
    // Samba knows the help texts only by their other name.
    Result<std::vector<uint8_t>> explain =
        QueryTitleList(performance_data_, kPerformanceData, "Explain 009", true);
    if (!explain.ok()) return Status::Error(helps.error() + "; " + explain.error());
    helps = std::move(explain);
  }
  return TitleBytes{.language = "009",
                    .counters = std::move(counters).value(),
                    .helps = std::move(helps).value()};
}

Result<TitleBytes> HkpdReader::ReadPerflibTitles(const std::string& language) {
  std::string subkey = std::string(kPerflibKey) + "\\" + language;
  std::string key_name = "HKEY_LOCAL_MACHINE\\" + subkey;
  RegistryKey key = 0;
  if (long rc = api_.OpenKey(*local_machine_, subkey, &key); rc != win_error::kSuccess) {
    last_error_code_ = rc;
    return Status::Error(Where(key_name) + ": RegOpenKeyExW failed with " +
                         DescribeWindowsError(rc));
  }
  Result<std::vector<uint8_t>> counters = QueryTitleList(key, key_name, "Counter", false);
  Result<std::vector<uint8_t>> helps =
      counters.ok() ? QueryTitleList(key, key_name, "Help", true) : counters.status();
  api_.CloseKey(key);
  if (!helps.ok()) return helps.status();
  return TitleBytes{.language = language,
                    .counters = std::move(counters).value(),
                    .helps = std::move(helps).value()};
}

Result<TitleBytes> HkpdReader::ReadTitles() {
  Result<TitleBytes> titles = ReadPerformanceKeyTitles();
  if (titles.ok()) return titles;
  std::string errors = titles.error();
  if (local_machine_) {
    for (const char* language : {"009", "CurrentLanguage"}) {
      titles = ReadPerflibTitles(language);
      if (titles.ok()) return titles;
      errors += "; " + titles.error();
    }
  }
  return Status::Error("no title database: " + errors);
}

std::optional<TitleBytes> HkpdReader::ReadDisplayLanguageTitles() {
  if (machine_.empty()) {
    RegistryKey nls_text = api_.Predefined(PredefinedKey::kPerformanceNlsText);
    Result<std::vector<uint8_t>> counters =
        QueryTitleList(nls_text, kPerformanceNlsText, "Counter", false);
    Result<std::vector<uint8_t>> helps =
        counters.ok() ? QueryTitleList(nls_text, kPerformanceNlsText, "Help", true)
                      : counters.status();
    if (helps.ok()) {
      return TitleBytes{.language = kDisplayLanguage,
                        .counters = std::move(counters).value(),
                        .helps = std::move(helps).value()};
    }
  }
  if (!local_machine_) return std::nullopt;
  Result<TitleBytes> perflib = ReadPerflibTitles(kDisplayLanguage);
  if (!perflib.ok()) return std::nullopt;
  return std::move(perflib).value();
}

Result<std::vector<TitleBytes>> HkpdReader::ReadAllTitles() {
  Result<TitleBytes> english = ReadTitles();
  if (!english.ok()) return english.status();
  std::vector<TitleBytes> databases = {std::move(english).value()};
  // An English database found only under CurrentLanguage already is the display language's.
  if (databases.front().language == kDisplayLanguage) return databases;
  std::optional<TitleBytes> display = ReadDisplayLanguageTitles();
  // Failing to read the display language is no failure; English alone was read successfully.
  last_error_code_ = 0;
  // An English host's display language is English: the same names need not travel twice.
  if (display && display->counters != databases.front().counters) {
    databases.push_back(std::move(*display));
  }
  return databases;
}

TitleVersion HkpdReader::ReadTitleVersion() {
  TitleVersion version;
  RegistryKey perflib = 0;
  if (!local_machine_ ||
      api_.OpenKey(*local_machine_, kPerflibKey, &perflib) != win_error::kSuccess) {
    return version;
  }
  version.last_counter = ReadDwordValue(api_, perflib, "Last Counter");
  version.last_help = ReadDwordValue(api_, perflib, "Last Help");
  api_.CloseKey(perflib);
  return version;
}

HostIdentity HkpdReader::ReadIdentity() {
  HostIdentity identity;
  identity.os = "Windows";
  if (!local_machine_) return identity;
  auto read_string = [&](const char* subkey, const char* name) -> std::string {
    RegistryKey key = 0;
    if (api_.OpenKey(*local_machine_, subkey, &key) != win_error::kSuccess) return "";
    std::string text = ReadTextValue(api_, key, name, 512);
    api_.CloseKey(key);
    return text;
  };
  identity.name = read_string(kComputerNameKey, "ComputerName");
  std::string product = read_string(kCurrentVersionKey, "ProductName");
  std::string build = read_string(kCurrentVersionKey, "CurrentBuild");
  identity.os_version =
      build.empty() ? product : product + (product.empty() ? "" : " ") + "build " + build;
  return identity;
}

Result<std::vector<DisabledProvider>> HkpdReader::ReadDisabledProviders() {
  // A lost connection shows in the next snapshot's error code, not here.
  last_error_code_ = 0;
  if (!local_machine_) {
    return Status::Unavailable(machine_ + (machine_.empty() ? "" : ": ") +
                               "HKEY_LOCAL_MACHINE is not open, so disabled providers cannot be "
                               "checked (the host refused it)");
  }
  Result<std::vector<DisabledProvider>> disabled = ScanDisabledProviders(api_, *local_machine_);
  if (!disabled.ok() && !machine_.empty()) return disabled.status().Prefixed(machine_ + ": ");
  return disabled;
}

namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;

// Continues an FNV-1a `hash` over one database.
uint64_t MixTitles(uint64_t hash, const TitleBytes& titles) {
  auto mix = [&](std::span<const uint8_t> bytes) {
    for (uint8_t b : bytes) hash = (hash ^ b) * 1099511628211ull;
    // Folds in the length too, so that moving bytes from one part to the next changes the hash.
    for (int shift = 0; shift < 64; shift += 8) {
      hash = (hash ^ ((bytes.size() >> shift) & 0xFF)) * 1099511628211ull;
    }
  };
  mix(std::span(reinterpret_cast<const uint8_t*>(titles.language.data()), titles.language.size()));
  mix(titles.counters);
  mix(titles.helps);
  return hash;
}

}  // namespace

uint64_t TitleFingerprint(const TitleBytes& titles) { return MixTitles(kFnvOffset, titles); }

uint64_t TitleFingerprint(const std::vector<TitleBytes>& databases) {
  uint64_t hash = kFnvOffset;
  for (const TitleBytes& titles : databases) hash = MixTitles(hash, titles);
  return hash;
}

}  // namespace perfhive
