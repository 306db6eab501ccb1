// What a closed group takes as today's frames (a sectioned keyframe and deltas against it, as
// the store writes them) against one columnar block (store/group_columns.h), in stored bytes per
// counter value, and the CPU time to encode and decode a block, per snapshot (issue 24; figures
// in docs/store_format.md; CPU time of the benchmark's thread). Two data sets:
//
//  - Procfs: $PERFHIVE_SNAPSHOT_DIR, a recording of this host (testing::ProcfsSequence), or
//    without it a few live snapshots 100 ms apart.
//  - Fleet: $PERFHIVE_FLEET_DIR, the replay folders tests/bench/realistic_fleet's
//    fleet_generator writes (one per host, its samples in name order), or without it the
//    builder-made sequence (testing::BuilderSequence), which the label says.
//
// BM_GroupColumnsStore* append a data set to a real store, with compaction and without, and
// divide the stored frames and the closed data directory by the counter values.
//
// Blocks are cut every 60 snapshots of a host (the store's group size; frames always are), or
// as the second argument says: a compaction may join closed groups into one block.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "perfdata/snapshot_reader.h"
#include "store/group_columns.h"
#include "store/sectioned_frame.h"
#include "store/snapshot_sections.h"
#include "store/store.h"
#include "tests/bench/snapshot_sequences.h"

namespace perfhive {
namespace {

constexpr size_t kGroupSize = 60;

struct DataSet {
  std::vector<testing::SnapshotSequence> hosts;
  std::string source;
};

// Every host folder under $PERFHIVE_FLEET_DIR, each its .perf files in name order.
DataSet Fleet() {
  DataSet set;
  const char* dir = std::getenv("PERFHIVE_FLEET_DIR");
  if (dir == nullptr || *dir == '\0') {
    set.hosts.push_back(testing::BuilderSequence(120));
    set.source = "builder-made, 120 snapshots (no $PERFHIVE_FLEET_DIR)";
    return set;
  }
  std::vector<std::filesystem::path> folders;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_directory()) folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  for (const std::filesystem::path& folder : folders) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() == ".perf") files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    testing::SnapshotSequence& host = set.hosts.emplace_back();
    for (const std::filesystem::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      host.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  set.source = std::string(dir) + ", " + std::to_string(folders.size()) + " hosts";
  return set;
}

DataSet Procfs() {
  DataSet set;
  set.hosts.push_back(testing::ProcfsSequence(20, &set.source));
  return set;
}

// Today's frames for one group: a sectioned keyframe, then each member against it.
size_t FramesSize(std::span<const std::vector<uint8_t>> group) {
  size_t total = 0;
  std::vector<SnapshotSection> key_sections;
  for (size_t i = 0; i < group.size(); ++i) {
    Result<SnapshotReader> reader = SnapshotReader::Open(group[i]);
    if (!reader.ok()) continue;
    std::vector<SnapshotSection> sections = SplitIntoSections(*reader, group[i].size());
    SectionedBase base{group[0], key_sections};
    total += EncodeSectionedFrame(group[i], sections, i == 0 ? nullptr : &base, 3).size();
    if (i == 0) key_sections = std::move(sections);
  }
  return total;
}

// This thread's CPU time: the machine is shared, and other work would count in wall time.
struct ThreadClock {
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<ThreadClock>;
  static time_point now() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return time_point(duration(int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec));
  }
};

void BytesPerValue(benchmark::State& state, const DataSet& set, int level, size_t block_size) {
  using Clock = ThreadClock;
  double values = 0, snapshots = 0, frames = 0, blocks = 0;
  Clock::duration encoding{}, decoding{};
  bool exact = true;
  for (auto _ : state) {
    for (const testing::SnapshotSequence& host : set.hosts) {
      for (size_t first = 0; first < host.size(); first += kGroupSize) {
        std::span<const std::vector<uint8_t>> group =
            std::span(host).subspan(first, std::min(kGroupSize, host.size() - first));
        for (const std::vector<uint8_t>& raw : group) {
          values += static_cast<double>(testing::CounterValues(raw));
        }
        snapshots += static_cast<double>(group.size());
        frames += static_cast<double>(FramesSize(group));
      }
      for (size_t first = 0; first < host.size(); first += block_size) {
        std::span<const std::vector<uint8_t>> group =
            std::span(host).subspan(first, std::min(block_size, host.size() - first));
        std::vector<std::span<const uint8_t>> spans(group.begin(), group.end());
        const Clock::time_point began = Clock::now();
        std::vector<uint8_t> block = EncodeGroupColumns(spans, level);
        const Clock::time_point encoded = Clock::now();
        Result<GroupColumns> parsed = GroupColumns::Parse(block);
        for (size_t i = 0; parsed.ok() && i < group.size(); ++i) {
          Result<std::vector<uint8_t>> restored = parsed->Restore(i);
          exact = exact && restored.ok() && *restored == group[i];
        }
        exact = exact && parsed.ok();
        decoding += Clock::now() - encoded;
        encoding += encoded - began;
        blocks += static_cast<double>(block.size());
      }
    }
  }
  if (!exact) state.SkipWithError("a snapshot did not restore byte for byte");
  if (values == 0) {
    state.SkipWithError("no snapshots");
    return;
  }
  state.SetLabel(set.source);
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  state.counters["snapshots"] = snapshots;
  state.counters["values_per_snapshot"] = values / snapshots;
  state.counters["frames_bytes_per_value"] = frames / values;
  state.counters["block_bytes_per_value"] = blocks / values;
  state.counters["encode_ms_per_snapshot"] = ms(encoding) / snapshots;
  state.counters["decode_ms_per_snapshot"] = ms(decoding) / snapshots;
}

void BM_GroupColumnsProcfs(benchmark::State& state) {
  static const DataSet set = Procfs();
  BytesPerValue(state, set, static_cast<int>(state.range(0)), static_cast<size_t>(state.range(1)));
}
// (zstd level, snapshots per block)
BENCHMARK(BM_GroupColumnsProcfs)
    ->Args({3, 60})
    ->Args({19, 60})
    ->Args({9, 360})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void BM_GroupColumnsFleet(benchmark::State& state) {
  static const DataSet set = Fleet();
  BytesPerValue(state, set, static_cast<int>(state.range(0)), static_cast<size_t>(state.range(1)));
}
BENCHMARK(BM_GroupColumnsFleet)
    ->Args({3, 60})
    ->Args({19, 60})
    ->Args({9, 360})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The whole data directory: every host of the data set appended to a new store (each its own
// host, in order), then a compaction pass of its closed groups or none, then closed. Each host's
// last group is still open, so stays as frames: what a store holds while its hosts keep sending.
void DataDirectory(benchmark::State& state, const DataSet& set) {
  StoreOptions options;
  const bool compact = state.range(0) != 0;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("perfhive-columns-" + std::to_string(getpid()));
  double values = 0, snapshots = 0, stored = 0, files = 0;
  for (auto _ : state) {
    std::filesystem::remove_all(dir);
    {
      Result<std::unique_ptr<Store>> store = Store::Open(dir.string(), options);
      if (!store.ok()) {
        state.SkipWithError(store.error().c_str());
        return;
      }
      for (size_t h = 0; h < set.hosts.size(); ++h) {
        for (size_t i = 0; i < set.hosts[h].size(); ++i) {
          const std::vector<uint8_t>& raw = set.hosts[h][i];
          values += static_cast<double>(testing::CounterValues(raw));
          snapshots += 1;
          SnapshotToAppend append{"host" + std::to_string(h), "Global", "bench", i, 0, raw};
          if (!(*store)->Append(std::move(append)).ok()) {
            state.SkipWithError("an append failed");
            return;
          }
        }
      }
      // No group counts as idle: those closed by their stream alone.
      if (compact && !(*store)->CompactClosedGroups(0).ok()) {
        state.SkipWithError("the compaction pass failed");
        return;
      }
      Result<StoreTotals> totals = (*store)->Totals();
      if (totals.ok()) stored = static_cast<double>(totals->stored_bytes);
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      files += static_cast<double>(entry.file_size());
    }
  }
  std::filesystem::remove_all(dir);
  state.SetLabel(set.source);
  state.counters["snapshots"] = snapshots;
  state.counters["stored_bytes_per_value"] = stored / values;
  state.counters["directory_bytes_per_value"] = files / values;
}

void BM_GroupColumnsStoreProcfs(benchmark::State& state) {
  static const DataSet set = Procfs();
  DataDirectory(state, set);
}
// (compact closed groups)
BENCHMARK(BM_GroupColumnsStoreProcfs)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_GroupColumnsStoreFleet(benchmark::State& state) {
  static const DataSet set = Fleet();
  DataDirectory(state, set);
}
BENCHMARK(BM_GroupColumnsStoreFleet)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perfhive
