// ReplaySource: a SnapshotSource over recorded files, so tests, benchmarks and users can feed
// the agent data taken elsewhere (another host, an older run, a builder-made Windows
// snapshot). DIR holds the snapshots, one raw PERF_DATA_BLOCK per file, handed out in name
// order one per TakeSnapshot, titles.bin, the bytes of "Counter 009", and optionally
// titles.<lang>.bin (titles.007.bin), the bytes of the host's display-language "Counter" list,
// handed on as its "CurrentLanguage" database as a Windows agent would. The snapshots are
// handed out as recorded, unchecked: sending the server malformed data on purpose is one of
// the things replay is for.

#ifndef PERFHIVE_SOURCES_REPLAY_REPLAY_SOURCE_H_
#define PERFHIVE_SOURCES_REPLAY_REPLAY_SOURCE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "port/env.h"
#include "sources/snapshot_source.h"

namespace perfhive {

struct ReplayOptions {
  std::string dir;
  HostIdentity identity;  // who the recordings are from; the name is required
};

class ReplaySource : public SnapshotSource {
 public:
  // The title file name in a replay directory.
  static constexpr const char* kTitlesFile = "titles.bin";

  // Fails when DIR cannot be listed, titles.bin or titles.<lang>.bin cannot be read, DIR holds
  // more than one titles.<lang>.bin, or no name is given.
  static Result<std::unique_ptr<ReplaySource>> Open(Env& env, ReplayOptions options);

  // The next file, whatever `query` says; OutOfRange once every file was handed out.
  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override;
  Result<std::vector<TitleBytes>> ReadTitles() override { return titles_; }
  // The titles once; they never change.
  Result<std::optional<std::vector<TitleBytes>>> ReadTitlesIfChanged() override;
  std::vector<std::string> TakeWarnings() override { return {}; }
  Result<HostIdentity> Identity() override { return options_.identity; }
  // Recordings hold snapshots, not the registry they came from.
  Result<std::vector<DisabledProvider>> DisabledProviders() override {
    return std::vector<DisabledProvider>{};
  }

  size_t file_count() const { return files_.size(); }
  size_t remaining() const { return files_.size() - next_; }

 private:
  ReplaySource(Env& env, ReplayOptions options, std::vector<std::string> files,
               std::vector<TitleBytes> titles)
      : env_(env),
        options_(std::move(options)),
        files_(std::move(files)),
        titles_(std::move(titles)) {}

  Env& env_;
  const ReplayOptions options_;
  const std::vector<std::string> files_;  // names in DIR, sorted
  const std::vector<TitleBytes> titles_;
  size_t next_ = 0;
  bool titles_returned_ = false;
};

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_REPLAY_REPLAY_SOURCE_H_
