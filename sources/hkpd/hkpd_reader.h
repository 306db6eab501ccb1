// HkpdReader: reads performance data and the title database of one host through its
// HKEY_PERFORMANCE_DATA key (the local one, or one RegConnectRegistryW returned) and its
// HKEY_LOCAL_MACHINE, with the buffer handling real hosts need: start from the size that worked
// last time, grow geometrically on ERROR_MORE_DATA without trusting the size returned with it,
// grow too when a reply fills the buffer exactly (Samba answers success with a truncated block),
// stop at a ceiling, retry ERROR_BUSY a bounded number of times, and check every reply before
// handing it on. docs/windows_sources.md has the rules and why.

#ifndef PERFHIVE_SOURCES_HKPD_HKPD_READER_H_
#define PERFHIVE_SOURCES_HKPD_HKPD_READER_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "perfdata/disabled_provider.h"
#include "port/env.h"
#include "sources/hkpd/registry_api.h"
#include "sources/snapshot_source.h"

namespace perfhive {

struct HkpdReaderOptions {
  // The first buffer (at least 1 byte); later reads start from the size that worked last.
  uint32_t initial_buffer_bytes = 256 * 1024;
  // The ceiling: a reply that needs more is an error.
  uint32_t max_buffer_bytes = 256 * 1024 * 1024;
  int busy_retries = 5;
  std::chrono::milliseconds busy_delay{50};  // the wait between busy retries, through Env
};

// Perflib's "Last Counter" and "Last Help": a cheap token that lodctr and unlodctr move when
// they change the title database. Either may be missing (Wine has neither).
struct TitleVersion {
  std::optional<uint32_t> last_counter;
  std::optional<uint32_t> last_help;
  bool operator==(const TitleVersion&) const = default;
};

class HkpdReader {
 public:
  // `machine` is "" for this host and "\\name" for a remote one; it prefixes every message.
  // This host's display-language lists are read from HKEY_PERFORMANCE_NLSTEXT too (through
  // `api`), a remote host's only from Perflib. Without `local_machine` the title database comes
  // from the performance key alone and there is no TitleVersion. `env` waits between busy retries
  // (tests pass a fake).
  HkpdReader(RegistryApi& api, Env& env, RegistryKey performance_data,
             std::optional<RegistryKey> local_machine, std::string machine,
             HkpdReaderOptions options = {});

  // One checked PERF_DATA_BLOCK for "Global", "Costly" or an index list.
  Result<std::vector<uint8_t>> ReadSnapshot(std::string_view query);

  // The English title database from the first place that has a complete one: "Counter 009"
  // with "Help 009" (or its other name "Explain 009") on the performance key, then the
  // "Counter"/"Help" values of Perflib\009, then of Perflib\CurrentLanguage (the host's
  // display language; `language` says "CurrentLanguage"). Every list must parse as one.
  Result<TitleBytes> ReadTitles();

  // ReadTitles(), then the display language's database where the host has one that differs
  // from it: "Counter"/"Help" of HKEY_PERFORMANCE_NLSTEXT (this host, current Windows), else of
  // Perflib\CurrentLanguage; `language` says "CurrentLanguage". A host without one (Wine, an
  // English host, a remote host refusing HKLM) gives English alone: only English is required.
  Result<std::vector<TitleBytes>> ReadAllTitles();

  // Perflib's Last Counter/Last Help; values that are absent or unreadable stay empty.
  TitleVersion ReadTitleVersion();

  // The computer's name (ActiveComputerName) and Windows' product name and build, read from
  // HKEY_LOCAL_MACHINE; what cannot be read stays empty (a remote host may refuse HKLM).
  HostIdentity ReadIdentity();

  // ScanDisabledProviders over HKEY_LOCAL_MACHINE; an error without it (a remote host that
  // refused it).
  Result<std::vector<DisabledProvider>> ReadDisabledProviders();

  // The Windows error code of the last failed registry call, 0 if the last read succeeded or
  // failed for another reason (a malformed reply, the ceiling).
  long last_error_code() const { return last_error_code_; }

 private:
  enum class ValueKind { kSnapshot, kTitleList };

  // One value, through the grow/busy loop.
  Result<std::vector<uint8_t>> QueryValue(RegistryKey key, std::string_view key_name,
                                          const std::string& value_name, ValueKind kind);
  // One "Counter"/"Help" list, checked to parse as one.
  Result<std::vector<uint8_t>> QueryTitleList(RegistryKey key, std::string_view key_name,
                                              const std::string& value_name, bool is_help);
  Result<TitleBytes> ReadPerformanceKeyTitles();
  Result<TitleBytes> ReadPerflibTitles(const std::string& language);
  std::optional<TitleBytes> ReadDisplayLanguageTitles();
  // "HKEY_PERFORMANCE_DATA", or "\\host\HKEY_PERFORMANCE_DATA" for a remote host.
  std::string Where(std::string_view key_name) const;

  RegistryApi& api_;
  Env& env_;
  RegistryKey performance_data_;
  std::optional<RegistryKey> local_machine_;
  std::string machine_;
  HkpdReaderOptions options_;
  // The buffer sizes that worked last time, for snapshots and for title lists.
  uint32_t snapshot_buffer_bytes_;
  uint32_t title_buffer_bytes_;
  long last_error_code_ = 0;
};

// A 64-bit FNV-1a digest of a title database's language and lists: equal digests, same
// database. Only for noticing a change on this host; content addresses that cross the wire are
// SHA-256 (port/sha256.h), since an FNV collision can be crafted.
uint64_t TitleFingerprint(const TitleBytes& titles);
// The same over several databases in order: any database that differs changes it.
uint64_t TitleFingerprint(const std::vector<TitleBytes>& databases);

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_HKPD_HKPD_READER_H_
