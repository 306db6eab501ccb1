// Remote-write export's CPU per sample, without the network: a request of 2,000 samples (the
// writer's default batch) encoded and snappy-compressed, and the whole path from computed
// samples (naming through the cache, labels, grouping into series, encoding, compressing).
// Figures are samples per second on one core; CPU per 1,000 samples is 1,000 / that rate.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "export/computed_sample.h"
#include "export/metric_naming.h"
#include "export/series_labels.h"
#include "export/write_request.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

constexpr int kSamplesPerRequest = 2000;

// Process counters of 200 instances at one time: the shape of a Windows host's snapshot.
std::vector<ComputedSample> HostSamples(int64_t timestamp_ms) {
  struct Counter {
    const char* name;
    uint32_t type;
  };
  const Counter kCounters[] = {
      {"% Processor Time", winperf::k100NsecTimer},
      {"% User Time", winperf::k100NsecTimer},
      {"Handle Count", winperf::kCounterRawcount},
      {"Thread Count", winperf::kCounterRawcount},
      {"IO Read Bytes/sec", winperf::kCounterBulkCount},
      {"IO Write Bytes/sec", winperf::kCounterBulkCount},
      {"Working Set", winperf::kCounterLargeRawcount},
      {"Private Bytes", winperf::kCounterLargeRawcount},
      {"Page Faults/sec", winperf::kCounterCounter},
      {"Elapsed Time", winperf::kElapsedTime},
  };
  std::vector<ComputedSample> samples;
  for (int instance = 0; instance < kSamplesPerRequest / 10; ++instance) {
    for (const Counter& counter : kCounters) {
      ComputedSample sample;
      sample.host = "web-frontend-0042.corp.example.com";
      sample.object_english = "Process";
      sample.counter_english = counter.name;
      sample.instance = "svchost#" + std::to_string(instance);
      sample.counter_type = counter.type;
      sample.pid = static_cast<uint32_t>(1000 + instance);
      sample.timestamp_ms = timestamp_ms;
      sample.value = 1234.5 + instance;
      samples.push_back(sample);
    }
  }
  return samples;
}

void BM_EncodeAndCompressRequest(benchmark::State& state) {
  MetricNamer namer;
  std::vector<Labels> labels;
  std::vector<SeriesSamples> series;
  for (const ComputedSample& sample : HostSamples(0)) {
    labels.push_back(SeriesLabels(
        sample,
        namer.Map(sample.object_english, sample.counter_english, sample.counter_type).name));
  }
  for (size_t i = 0; i < labels.size(); ++i) {
    series.push_back({&labels[i], {{1700000000000, 1234.5 + static_cast<double>(i)}}});
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string body = EncodeWriteRequest(series);
    bytes = body.size();
    benchmark::DoNotOptimize(body);
  }
  state.SetItemsProcessed(state.iterations() * kSamplesPerRequest);
  state.counters["body_bytes_per_sample"] = static_cast<double>(bytes) / kSamplesPerRequest;
}
BENCHMARK(BM_EncodeAndCompressRequest);

void BM_ComputedSamplesToRequest(benchmark::State& state) {
  MetricNamer namer;
  const std::vector<ComputedSample> samples = HostSamples(1700000000000);
  for (auto _ : state) {
    std::vector<Labels> labels;
    labels.reserve(samples.size());
    std::vector<SeriesSamples> series;
    series.reserve(samples.size());
    for (const ComputedSample& sample : samples) {
      const MetricName& metric =
          namer.Map(sample.object_english, sample.counter_english, sample.counter_type);
      labels.push_back(SeriesLabels(sample, metric.name));
      series.push_back({&labels.back(), {{sample.timestamp_ms, metric.Apply(sample.value)}}});
    }
    benchmark::DoNotOptimize(EncodeWriteRequest(series));
  }
  state.SetItemsProcessed(state.iterations() * kSamplesPerRequest);
}
BENCHMARK(BM_ComputedSamplesToRequest);

}  // namespace
}  // namespace perfhive
