#include "tests/bench/snapshot_sequences.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <thread>

#include "perfdata/snapshot_reader.h"
#include "tests/support/large_snapshot.h"
#ifdef __linux__
#include "sources/procfs/procfs_source.h"
#endif

namespace perfhive::testing {

SnapshotSequence BuilderSequence(int count) {
  SnapshotSequence out;
  for (int i = 0; i < count; ++i) out.push_back(BuildLargeSnapshot(i));
  return out;
}

SnapshotSequence ProcfsSequence(int live_count, std::string* source) {
  SnapshotSequence out;
  if (const char* dir = std::getenv("PERFHIVE_SNAPSHOT_DIR"); dir != nullptr) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().filename() != "titles.bin") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      std::ifstream in(file, std::ios::binary);
      out.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    *source = std::string(dir);
    return out;
  }
#ifdef __linux__
  Result<std::unique_ptr<ProcfsSource>> procfs = ProcfsSource::Create();
  if (!procfs.ok()) return out;
  for (int i = 0; i < live_count; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Result<std::vector<uint8_t>> snapshot = (*procfs)->TakeSnapshot("Global");
    if (snapshot.ok()) out.push_back(std::move(*snapshot));
  }
  *source = "live procfs, 100 ms apart";
#endif
  return out;
}

uint64_t CounterValues(std::span<const uint8_t> snapshot) {
  Result<SnapshotReader> reader = SnapshotReader::Open(snapshot);
  if (!reader.ok()) return 0;
  uint64_t values = 0;
  for (ObjectView object : reader->objects()) {
    values += static_cast<uint64_t>(object.counters().size()) * object.instances().size();
  }
  return values;
}

}  // namespace perfhive::testing
