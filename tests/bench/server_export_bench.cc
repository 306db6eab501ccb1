// The server's side of the Prometheus export, per computed sample: one exporter round of one
// host (30 stored procfs snapshots of this machine read back from a real store with their title
// database, every counter computed with the query library as `perfhive query` does, turned into
// ComputedSamples), then the same into remote-write requests (naming, labels, encoding, snappy).
// Figures are exported samples per second on one core; CPU per 1,000 is 1,000 / that rate.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "export/metric_naming.h"
#include "export/series_labels.h"
#include "export/write_request.h"
#include "server/export/export_selection.h"
#include "sources/procfs/procfs_source.h"
#include "store/sample_loader.h"
#include "store/store.h"
#include "tests/bench/snapshot_sequences.h"

namespace perfhive {
namespace {

constexpr int kRound = 30;  // PrometheusExporterOptions::max_samples_per_round

// A store holding kRound + 1 procfs snapshots of one host and its title database.
struct ExportFixture {
  ExportFixture() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "perfhive-export-bench-XXXXXX").string();
    dir = mkdtemp(pattern.data());
    store = std::move(Store::Open(dir).value());
    std::string source;
    testing::SnapshotSequence sequence = testing::ProcfsSequence(kRound + 1, &source);
    TitleBytes titles = ProcfsSource::Create().value()->ReadTitles().value().front();
    Sha256Digest digest =
        store->catalog().PutTitleDatabase(titles.language, titles.counters, titles.helps).value();
    for (size_t i = 0; i < sequence.size(); ++i) {
      SnapshotToAppend append{.host = "bench",
                              .query = "Global",
                              .instance_id = "run",
                              .sequence = i + 1,
                              .receive_time_ns = 0,
                              .raw = sequence[i]};
      AppendResult stored = store->Append(std::move(append)).value();
      if (i == 0) {
        (void)store->catalog().SetTitlesInForce("bench", titles.language, digest,
                                                stored.sample_time_ns);
        first_ns = stored.sample_time_ns;
      }
    }
  }
  ~ExportFixture() {
    store.reset();
    std::filesystem::remove_all(dir);
  }
  std::string dir;
  std::unique_ptr<Store> store;
  int64_t first_ns = 0;
};

ExportFixture& Fixture() {
  static ExportFixture* fixture = new ExportFixture();
  return *fixture;
}

void BM_ExportRoundFromStore(benchmark::State& state) {
  ExportFixture& fixture = Fixture();
  SampleLoader loader(*fixture.store);
  ExportSelection selection = ExportSelection::Parse({}, {}).value();
  const bool encode = state.range(0) != 0;
  MetricNamer namer;
  size_t samples = 0;
  for (auto _ : state) {
    query::HostSamples loaded = loader.LoadAfter("bench", fixture.first_ns, kRound).value();
    std::vector<ComputedSample> computed = selection.Compute(loaded, fixture.first_ns).value();
    samples += computed.size();
    if (encode) {
      // What the writer's shards do with them: one series per sample here, 2,000 per request.
      std::vector<Labels> labels;
      labels.reserve(computed.size());
      std::vector<SeriesSamples> series;
      series.reserve(2000);
      for (const ComputedSample& sample : computed) {
        const MetricName& metric =
            namer.Map(sample.object_english, sample.counter_english, sample.counter_type);
        labels.push_back(SeriesLabels(sample, metric.name));
        series.push_back({&labels.back(), {{sample.timestamp_ms, metric.Apply(sample.value)}}});
        if (series.size() == 2000) {
          benchmark::DoNotOptimize(EncodeWriteRequest(series));
          series.clear();
        }
      }
      if (!series.empty()) benchmark::DoNotOptimize(EncodeWriteRequest(series));
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(samples));
  state.counters["samples_per_round"] =
      static_cast<double>(samples) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ExportRoundFromStore)
    ->ArgName("encode")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace perfhive
