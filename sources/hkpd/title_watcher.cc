#include "sources/hkpd/title_watcher.h"

#include <utility>

namespace perfhive {

TitleWatcher::TitleWatcher(Env& env, std::chrono::steady_clock::duration recheck)
    : env_(env), recheck_(recheck) {}

Result<std::optional<TitleBytes>> TitleWatcher::ReadIfChanged(HkpdReader& reader) {
  TitleVersion version = reader.ReadTitleVersion();
  std::chrono::steady_clock::time_point now = env_.SteadyNow();
  if (digest_ && version_ == version && now - last_read_ < recheck_) {
    return std::optional<TitleBytes>();
  }
  Result<TitleBytes> titles = reader.ReadTitles();
  if (!titles.ok()) return titles.status();
  version_ = version;
  last_read_ = now;
  uint64_t digest = TitleFingerprint(*titles);
  if (digest_ == digest) return std::optional<TitleBytes>();
  digest_ = digest;
  return std::optional<TitleBytes>(std::move(titles).value());
}

}  // namespace perfhive
