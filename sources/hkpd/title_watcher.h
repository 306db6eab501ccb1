// TitleWatcher: decides when a host's title databases (English and its display language's) must
// be read again and handed on, so that the server gets them once, and again only after one
// changed (lodctr /R renumbers extensible
// counters). Perflib's Last Counter/Last Help are the cheap token checked on every call; the
// lists themselves are read when the token moved, when it has never been read, and at least
// every `recheck` (a change that leaves the token alone, a host without the token), and are
// handed on only when their digest differs from the last one handed on.

#ifndef PERFHIVE_SOURCES_HKPD_TITLE_WATCHER_H_
#define PERFHIVE_SOURCES_HKPD_TITLE_WATCHER_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.h"
#include "port/env.h"
#include "sources/hkpd/hkpd_reader.h"
#include "sources/snapshot_source.h"

namespace perfhive {

class TitleWatcher {
 public:
  // `env`'s steady clock times the recheck.
  TitleWatcher(Env& env, std::chrono::steady_clock::duration recheck);

  // The databases (HkpdReader::ReadAllTitles) if any differs from the ones last returned (or
  // none were), std::nullopt if they are unchanged.
  Result<std::optional<std::vector<TitleBytes>>> ReadIfChanged(HkpdReader& reader);

 private:
  Env& env_;
  std::chrono::steady_clock::duration recheck_;
  std::optional<TitleVersion> version_;  // the token when the lists were last read
  std::chrono::steady_clock::time_point last_read_{};
  std::optional<uint64_t> digest_;  // of the lists last returned
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_HKPD_TITLE_WATCHER_H_
