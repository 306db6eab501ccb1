// Helpers for the agent's tests: a temporary directory removed afterwards, and small raw
// snapshots whose bytes differ from one sample to the next like real ones do.

#ifndef PERFHIVE_TESTS_AGENT_AGENT_TEST_UTIL_H_
#define PERFHIVE_TESTS_AGENT_AGENT_TEST_UTIL_H_

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "agent/snapshot_record.h"

namespace perfhive::testing {

// The owner the agent's unit tests take snapshots as.
inline SnapshotOwner TestOwner(std::string name = "TESTHOST") {
  return SnapshotOwner{.host = {.name = std::move(name), .os = "Windows", .os_version = "10.0"},
                       .agentless = false};
}

class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("perfhive-agent-test-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string path() const { return path_.string(); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// `size` bytes: a fixed pattern with counters that move with `sample`.
inline std::vector<uint8_t> FakeRaw(int sample, size_t size = 4096) {
  std::vector<uint8_t> raw(size);
  for (size_t i = 0; i < size; ++i)
    raw[i] = static_cast<uint8_t>(i * 7 + (i % 64 == 0 ? sample : 0));
  return raw;
}

// TestOwner's snapshot number `sequence` of the Global query: FakeRaw(sequence, size), naming
// `titles`.
inline SnapshotRecord TestRecord(uint64_t sequence, size_t size,
                                 std::vector<TitleRef> titles = {}) {
  return SnapshotRecord{.owner = TestOwner(),
                        .instance_id = "feedface",
                        .sequence = sequence,
                        .query = "Global",
                        .titles = std::move(titles),
                        .raw = FakeRaw(static_cast<int>(sequence), size)};
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_AGENT_AGENT_TEST_UTIL_H_
