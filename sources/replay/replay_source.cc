#include "sources/replay/replay_source.h"

#include <algorithm>
#include <string_view>

namespace perfhive {
namespace {

// titles.<lang>.bin: "titles." and ".bin" around a Perflib language id ("007").
bool IsDisplayLanguageFile(std::string_view name) {
  constexpr std::string_view kPrefix = "titles.", kSuffix = ".bin";
  return name.size() > kPrefix.size() + kSuffix.size() && name.starts_with(kPrefix) &&
         name.ends_with(kSuffix);
}

}  // namespace

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
  std::vector<TitleBytes> titles = {
      TitleBytes{.language = "009", .counters = std::move(counters).value(), .helps = {}}};
  // In name order: the snapshots' order, and a stable message.
  std::sort(names->begin(), names->end());
  std::vector<std::string> files;
  std::string display_file;
  for (std::string& name : *names) {
    if (name == kTitlesFile) continue;
    if (!IsDisplayLanguageFile(name)) {
      files.push_back(std::move(name));
      continue;
    }
    if (!display_file.empty()) {
      return Status::InvalidArgument("replay: " + options.dir + " holds " + display_file + " and " +
                                     name + "; a host has one display language");
    }
    display_file = name;
  }
  if (!display_file.empty()) {
    Result<std::vector<uint8_t>> display = env.ReadFile(options.dir + "/" + display_file);
    if (!display.ok()) return display.status().Prefixed("replay: ");
    titles.push_back(TitleBytes{
        .language = kDisplayLanguage, .counters = std::move(display).value(), .helps = {}});
  }
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

Result<std::optional<std::vector<TitleBytes>>> ReplaySource::ReadTitlesIfChanged() {
  if (titles_returned_) return std::optional<std::vector<TitleBytes>>();
  titles_returned_ = true;
  return std::optional<std::vector<TitleBytes>>(titles_);
}

}  // namespace perfhive
