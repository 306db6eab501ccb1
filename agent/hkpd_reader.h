// HkpdReader: reads performance data and the title database from one HKEY_PERFORMANCE_DATA key
// (the local one, or one RegConnectRegistryW returned), with the buffer handling real hosts
// need: start from the size that worked last time, grow geometrically on ERROR_MORE_DATA
// without trusting the size returned with it, grow too when a reply fills the buffer exactly
// (Samba answers success with a truncated block), stop at a ceiling, retry ERROR_BUSY a bounded
// number of times, and check the block before handing it on. docs/windows_sources.md has the
// rules and why.

#ifndef PERFHIVE_AGENT_HKPD_READER_H_
#define PERFHIVE_AGENT_HKPD_READER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/registry_api.h"
#include "agent/snapshot_source.h"
#include "perfdata/status.h"

namespace perfhive {

struct HkpdReaderOptions {
  uint32_t initial_buffer_bytes = 256 * 1024;
  uint32_t max_buffer_bytes = 256 * 1024 * 1024;
  int busy_retries = 5;
  std::chrono::milliseconds busy_delay{50};
  // How to wait between busy retries; tests pass a recorder.
  std::function<void(std::chrono::milliseconds)> sleep;
};

// A cheap token that changes when the host's title database is rebuilt (lodctr /R), and a
// digest of its bytes for when the token is missing.
struct TitleVersion {
  std::optional<uint32_t> last_counter;  // Perflib "Last Counter", if the host has it
  std::optional<uint32_t> last_help;
  bool operator==(const TitleVersion&) const = default;
};

class HkpdReader {
 public:
  // `where` names the key in messages ("HKEY_PERFORMANCE_DATA", "\\host").
  HkpdReader(RegistryApi& api, RegistryKey key, std::string where, HkpdReaderOptions options = {});

  // One checked PERF_DATA_BLOCK for "Global", "Costly" or an index list.
  Result<std::vector<uint8_t>> ReadSnapshot(std::string_view query);

  // "Counter 009" and "Help 009" from the performance key; if the host does not answer them
  // there, Perflib\009 "Counter"/"Help" under `local_machine` (when given).
  Result<TitleBytes> ReadTitles(std::optional<RegistryKey> local_machine);

  // Perflib's Last Counter/Last Help under `local_machine`; absent values stay empty.
  TitleVersion ReadTitleVersion(RegistryKey local_machine);

  uint32_t last_buffer_bytes() const { return buffer_bytes_; }
  // The Windows error code of the last failed registry call (0 if the last read succeeded or
  // failed for another reason, such as a malformed block).
  long last_error_code() const { return last_error_code_; }

 private:
  // Queries one value with the grow/busy loop. `is_snapshot` turns on the full-buffer rule.
  Result<std::vector<uint8_t>> QueryValue(RegistryKey key, const std::string& name,
                                          bool is_snapshot, uint32_t* type);

  RegistryApi& api_;
  RegistryKey key_;
  std::string where_;
  HkpdReaderOptions options_;
  uint32_t buffer_bytes_;
  long last_error_code_ = 0;
};

// A 64-bit FNV-1a digest of the title database's bytes: equal digests, same database.
uint64_t TitleDigest(const TitleBytes& titles);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_HKPD_READER_H_
