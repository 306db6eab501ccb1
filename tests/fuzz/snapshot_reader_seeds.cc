// Writes the seed corpus for snapshot_reader_fuzzer into the directory given as argument:
// builder-made snapshots of several shapes (instances with parents, no instances, metadata,
// code-page names, a header-excluding TotalByteLength) and a slice of the large snapshot.

#include "perfdata/snapshot_builder.h"
#include "perfdata/winperf.h"
#include "tests/fuzz/seed_corpus.h"

namespace {

using perfhive::ObjectBuilder;
using perfhive::SnapshotBuilder;
namespace wp = perfhive::winperf;

}  // namespace

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;

  corpus.Write("empty", SnapshotBuilder().set_system_name("WINEHOST").Build());

  SnapshotBuilder processes;
  processes.set_system_name("HOST").set_perf_time(123456789).set_perf_time_100ns(987654321);
  ObjectBuilder& process = processes.AddObject(230);
  uint32_t cpu = process.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  uint32_t id = process.AddCounter({.name_index = 784, .type = wp::kCounterRawcount});
  uint32_t elapsed = process.AddCounter({.name_index = 684, .type = wp::kElapsedTime});
  for (uint32_t p = 0; p < 3; ++p) {
    uint32_t i = process.AddInstance(p == 2 ? "_Total" : "svchost");
    process.SetValue(i, cpu, 1000 * p);
    process.SetValue(i, id, 4 * p);
    process.SetValue(i, elapsed, 5);
  }
  ObjectBuilder& thread = processes.AddObject(232);
  thread.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  thread.AddInstance("0", -1, 230, 0);
  thread.AddInstance("1", -1, 230, 1);
  corpus.Write("process_thread", processes.Build());

  SnapshotBuilder mixed;
  mixed.set_total_length_excludes_header(true);
  ObjectBuilder& system = mixed.AddObject(2);
  system.AddCounter({.name_index = 250, .type = wp::kCounterRawcount, .size = 8});
  system.AddCounter({.name_index = 1000, .type = wp::kCounterText, .size = 12});
  system.AddCounter({.name_index = 1002, .type = wp::kCounterMultiTimer});
  system.set_no_instances();
  system.SetMultiCount(0, 2, 4);
  ObjectBuilder& metadata = mixed.AddObject(4);
  metadata.AddCounter({.name_index = 24, .type = wp::kCounterLargeRawcount});
  metadata.set_metadata(wp::kMetadataNoInstances);
  ObjectBuilder& latin = mixed.AddObject(236);
  latin.set_code_page(1252);
  latin.AddCounter({.name_index = 408, .type = wp::kRawFraction});
  latin.AddCounter({.name_index = 408, .type = wp::kRawBase});
  latin.AddInstance("C:");
  latin.AddInstance("caf\xE9");
  corpus.Write("mixed", mixed.Build());
  return 0;
}
