#include "sources/hkpd/title_watcher.h"

#include <utility>

namespace perfhive {

TitleWatcher::TitleWatcher(Env& env, std::chrono::steady_clock::duration recheck)
    : env_(env), recheck_(recheck) {}

Result<std::optional<std::vector<TitleBytes>>> TitleWatcher::ReadIfChanged(HkpdReader& reader) {
  using Databases = std::optional<std::vector<TitleBytes>>;
  TitleVersion version = reader.ReadTitleVersion();
  std::chrono::steady_clock::time_point now = env_.SteadyNow();
  if (digest_ && version_ == version && now - last_read_ < recheck_) {
    return Databases();
  }
  Result<std::vector<TitleBytes>> titles = reader.ReadAllTitles();
  if (!titles.ok()) return titles.status();
  version_ = version;
  last_read_ = now;
  uint64_t digest = TitleFingerprint(*titles);
  if (digest_ == digest) return Databases();
  digest_ = digest;
  return Databases(std::move(titles).value());
}

}  // namespace perfhive
