#include "sources/replay/replay_source.h"

#include <algorithm>

namespace perfhive {

Result<std::unique_ptr<ReplaySource>> ReplaySource::Open(Env& env, ReplayOptions options) {
  if (options.identity.name.empty()) {
    return Status::InvalidArgument("replay: a host name is needed (--host-name)");
  }
  Result<std::vector<std::string>> names = env.ListDirectory(options.dir);
  if (!names.ok()) return names.status().Prefixed("replay: ");
  Result<std::vector<uint8_t>> counters = env.ReadFile(options.dir + "/" + kTitlesFile);
  if (!counters.ok()) {
    return counters.status().Prefixed("replay: the title database (the bytes of \"Counter 009\") " +
                                      std::string("is needed as ") + kTitlesFile + ": ");
  }
  std::vector<std::string> files;
  for (std::string& name : *names) {
    if (name != kTitlesFile) files.push_back(std::move(name));
  }
  std::sort(files.begin(), files.end());
  TitleBytes titles{.language = "009", .counters = std::move(counters).value(), .helps = {}};
  return std::unique_ptr<ReplaySource>(
      new ReplaySource(env, std::move(options), std::move(files), std::move(titles)));
}

Result<std::vector<uint8_t>> ReplaySource::TakeSnapshot(std::string_view /*query*/) {
  if (next_ == files_.size()) {
    return Status(StatusCode::kOutOfRange, "replay: all " + std::to_string(files_.size()) +
                                               " files of " + options_.dir + " were handed out");
  }
  const std::string& name = files_[next_++];
  Result<std::vector<uint8_t>> bytes = env_.ReadFile(options_.dir + "/" + name);
  if (!bytes.ok()) return bytes.status().Prefixed("replay: ");
  return bytes;
}

Result<std::optional<TitleBytes>> ReplaySource::ReadTitlesIfChanged() {
  if (titles_returned_) return std::optional<TitleBytes>();
  titles_returned_ = true;
  return std::optional<TitleBytes>(titles_);
}

}  // namespace perfhive
