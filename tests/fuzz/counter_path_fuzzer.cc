// Feeds arbitrary text to the counter path parser: whatever parses must format and parse back to
// the same path, and expand against a small snapshot with hostile instance names into paths
// that parse again and select exactly the counter they were made for.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "perfdata/counter_path.h"
#include "perfdata/path_expander.h"
#include "perfdata/snapshot_builder.h"

namespace {

// Process instances named with path syntax, and threads under them.
const std::vector<uint8_t>& HostileSnapshot() {
  static const std::vector<uint8_t> bytes = [] {
    perfhive::SnapshotBuilder builder;
    builder.set_system_name("HOST");
    perfhive::ObjectBuilder& process = builder.AddObject(230);
    process.AddCounter({.name_index = 784});
    const char* names[] = {"a/b", "chrome (1)", "x#12", "y)", "*", "`", "", "a/b", "Xorg", "xorg"};
    for (const char* name : names) process.AddInstance(name);
    perfhive::ObjectBuilder& thread = builder.AddObject(232);
    thread.AddCounter({.name_index = 804});
    for (uint32_t parent = 0; parent < std::size(names); ++parent) {
      thread.AddInstance("0", perfhive::winperf::kNoUniqueId, 230, parent);
    }
    return builder.Build();
  }();
  return bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  perfhive::Result<perfhive::CounterPath> path = perfhive::ParseCounterPath(text);
  if (!path.ok()) return 0;
  perfhive::Result<perfhive::CounterPath> again =
      perfhive::ParseCounterPath(perfhive::FormatCounterPath(*path));
  if (!again.ok() || !(*again == *path)) std::abort();

  static const perfhive::SnapshotReader snapshot =
      *perfhive::SnapshotReader::Open(HostileSnapshot());
  static const perfhive::TitleDatabase titles = [] {
    perfhive::TitleDatabase database;
    database.AddName(230, "Process");
    database.AddName(232, "Thread");
    database.AddName(784, "ID Process");
    return database;
  }();
  perfhive::PathExpander expander(snapshot, titles);
  for (const perfhive::CounterMatch& match : expander.Expand(*path)) {
    perfhive::Result<perfhive::CounterPath> concrete = perfhive::ParseCounterPath(match.path);
    if (!concrete.ok()) std::abort();
    std::vector<perfhive::CounterMatch> itself = expander.Expand(*concrete);
    if (itself.size() != 1 || itself[0].path != match.path ||
        itself[0].instance.position() != match.instance.position() ||
        itself[0].counter.position() != match.counter.position()) {
      std::abort();
    }
  }
  return 0;
}
