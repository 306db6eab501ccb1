// Against the real Debian `prometheus`, started here on 127.0.0.1 with its remote-write receiver
// and a temporary storage directory, and stopped by PID: what the writer pushes is what
// Prometheus stores (values and timestamps read back with /api/v1/query_range); a backlog
// offered while the receiver is down arrives once it is up; samples already delivered, resent
// in front of new ones as after a restart, do not keep the new ones out; and the /metrics page
// of the real server passes `promtool check metrics`. Skips when prometheus is not installed.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "export/http_client.h"
#include "export/http_server.h"
#include "export/metrics_http_server.h"
#include "export/metrics_text.h"
#include "export/remote_writer.h"
#include "perfdata/winperf.h"
#include "tests/support/loopback_port.h"
#include "tests/support/prometheus_process.h"

namespace perfhive {
namespace {

namespace wp = winperf;
using std::chrono::milliseconds;
using testing::Prometheus;
using testing::UnusedLoopbackPort;
using TempDir = testing::PrometheusTempDir;

// Sample times: whole 10 s steps shortly before now, inside Prometheus' accepted window.
int64_t RecentStart() {
  int64_t now =
      std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  return (now - 10 * 60 * 1000) / 10000 * 10000;
}

ComputedSample Computed(const char* object, const char* counter, uint32_t type,
                        const std::string& instance, int64_t t, double value) {
  ComputedSample sample;
  sample.host = "web01";
  sample.object_english = object;
  sample.counter_english = counter;
  sample.instance = instance;
  sample.counter_type = type;
  sample.timestamp_ms = t;
  sample.value = value;
  return sample;
}

ComputedSample CpuSample(const std::string& instance, int64_t t, double percent) {
  return Computed("Processor", "% Processor Time", wp::k100NsecTimerInv, instance, t, percent);
}

// What the writer acknowledged per host, and what it logged (refusals name the receiver's
// reason), shown when the test fails.
struct Delivered {
  std::mutex mutex;
  std::map<std::string, uint64_t> position;
  std::vector<std::string> log;
  ~Delivered() {
    if (!::testing::Test::HasFailure()) return;
    for (const std::string& line : log) std::fprintf(stderr, "writer: %s\n", line.c_str());
  }
};

RemoteWriterOptions WriterOptions(const std::string& url, Delivered& delivered) {
  RemoteWriterOptions options;
  options.url = url;
  options.shards = 2;
  options.max_samples_per_request = 5;
  options.min_backoff = milliseconds(20);
  options.max_backoff = milliseconds(200);
  options.on_delivered = [&delivered](const std::string& host, uint64_t position) {
    std::lock_guard lock(delivered.mutex);
    delivered.position[host] = position;
  };
  options.log = [&delivered](const std::string& line) {
    std::lock_guard lock(delivered.mutex);
    delivered.log.push_back(line);
  };
  return options;
}

TEST(PrometheusReceiverTest, StoresTheValuesAndTimesPushed) {
  SKIP_WITHOUT_PROMETHEUS();
  TempDir dir;
  Prometheus prometheus(dir.path());
  ASSERT_TRUE(prometheus.WaitReady());
  Delivered delivered;
  RemoteWriter writer(WriterOptions(prometheus.WriteUrl(), delivered));
  const int64_t t0 = RecentStart();
  // Processor % Processor Time for _Total and 0, 6 samples 10 s apart: 12.5 %, 25 %, ...
  for (int step = 0; step < 6; ++step) {
    std::vector<ComputedSample> batch = {CpuSample("_Total", t0 + step * 10000, 12.5 * (step + 1)),
                                         CpuSample("0", t0 + step * 10000, 100 - step)};
    // And one process handle count with its PID.
    batch.push_back(Computed("Process", "Handle Count", wp::kCounterRawcount, "svchost#1",
                             t0 + step * 10000, 400.0 + step));
    batch.back().pid = 812;
    ASSERT_TRUE(writer.Offer("web01", batch, step + 1));
  }
  ASSERT_TRUE(writer.Flush(milliseconds(30000)));
  EXPECT_EQ(writer.stats().sent, 18u);
  EXPECT_EQ(writer.stats().dropped, 0u);
  {
    std::lock_guard lock(delivered.mutex);
    EXPECT_EQ(delivered.position["web01"], 6u);
  }

  auto cpu =
      prometheus.Range("pdh_processor_processor_time_ratio{host=\"web01\"}", t0, t0 + 50000, 10000);
  using Points = std::vector<std::pair<int64_t, double>>;
  EXPECT_EQ(cpu["_Total"], (Points{{t0, 0.125},
                                   {t0 + 10000, 0.25},
                                   {t0 + 20000, 0.375},
                                   {t0 + 30000, 0.5},
                                   {t0 + 40000, 0.625},
                                   {t0 + 50000, 0.75}}));
  EXPECT_EQ(cpu["0"], (Points{{t0, 1.0},
                              {t0 + 10000, 0.99},
                              {t0 + 20000, 0.98},
                              {t0 + 30000, 0.97},
                              {t0 + 40000, 0.96},
                              {t0 + 50000, 0.95}}));
  auto handles = prometheus.Range("pdh_process_handles{pid=\"812\"}", t0, t0 + 50000, 10000);
  EXPECT_EQ(handles["svchost#1"], (Points{{t0, 400},
                                          {t0 + 10000, 401},
                                          {t0 + 20000, 402},
                                          {t0 + 30000, 403},
                                          {t0 + 40000, 404},
                                          {t0 + 50000, 405}}));
}

TEST(PrometheusReceiverTest, BacklogOfferedWhileTheReceiverIsDownArrivesWhenItIsUp) {
  SKIP_WITHOUT_PROMETHEUS();
  TempDir dir;
  uint16_t port = UnusedLoopbackPort();
  Delivered delivered;
  RemoteWriter writer(
      WriterOptions("http://127.0.0.1:" + std::to_string(port) + "/api/v1/write", delivered));
  const int64_t t0 = RecentStart();
  for (int step = 0; step < 8; ++step) {
    ASSERT_TRUE(
        writer.Offer("web01", std::vector{CpuSample("_Total", t0 + step * 10000, step)}, step + 1));
  }
  EXPECT_FALSE(writer.Flush(milliseconds(500)));  // nothing listens yet
  EXPECT_GT(writer.stats().failed, 0u);
  EXPECT_EQ(writer.stats().sent, 0u);
  {
    std::lock_guard lock(delivered.mutex);
    EXPECT_TRUE(delivered.position.empty());
  }

  Prometheus prometheus(dir.path(), port);
  ASSERT_TRUE(prometheus.WaitReady());
  ASSERT_TRUE(writer.Flush(milliseconds(30000)));
  EXPECT_EQ(writer.stats().sent, 8u);
  EXPECT_EQ(writer.stats().lag_ms(), 0);
  {
    std::lock_guard lock(delivered.mutex);
    EXPECT_EQ(delivered.position["web01"], 8u);
  }
  auto cpu = prometheus.Range("pdh_processor_processor_time_ratio", t0, t0 + 70000, 10000);
  ASSERT_EQ(cpu["_Total"].size(), 8u);
  for (int step = 0; step < 8; ++step) {
    EXPECT_EQ(cpu["_Total"][step].first, t0 + step * 10000);
    EXPECT_DOUBLE_EQ(cpu["_Total"][step].second, step * 0.01);
  }
}

TEST(PrometheusReceiverTest, ResentSamplesInFrontOfNewOnesDoNotKeepTheNewOnesOut) {
  SKIP_WITHOUT_PROMETHEUS();
  TempDir dir;
  Prometheus prometheus(dir.path());
  ASSERT_TRUE(prometheus.WaitReady());
  const int64_t t0 = RecentStart();
  auto batch = [&](int step) {
    return std::vector{CpuSample("_Total", t0 + step * 10000, 10 * step),
                       CpuSample("1", t0 + step * 10000, 10 * step + 1)};
  };
  {
    Delivered delivered;
    RemoteWriter first(WriterOptions(prometheus.WriteUrl(), delivered));
    for (int step = 0; step < 3; ++step) ASSERT_TRUE(first.Offer("web01", batch(step), step));
    ASSERT_TRUE(first.Flush(milliseconds(30000)));
  }
  // A restarted server resumes from an older persisted position: steps 0-2 again, then 3-5.
  Delivered delivered;
  RemoteWriterOptions options = WriterOptions(prometheus.WriteUrl(), delivered);
  options.shards = 1;
  options.max_samples_per_request = 100;
  RemoteWriter second(options);
  std::vector<ComputedSample> resumed;
  for (int step = 0; step < 6; ++step) {
    auto one = batch(step);
    resumed.insert(resumed.end(), one.begin(), one.end());
  }
  ASSERT_TRUE(second.Offer("web01", resumed, 5));
  ASSERT_TRUE(second.Flush(milliseconds(30000)));
  EXPECT_GT(second.stats().dropped, 0u);  // the receiver refused the old ones
  {
    std::lock_guard lock(delivered.mutex);
    EXPECT_EQ(delivered.position["web01"], 5u);
  }
  auto cpu = prometheus.Range("pdh_processor_processor_time_ratio", t0, t0 + 50000, 10000);
  ASSERT_EQ(cpu["1"].size(), 6u);
  for (int step = 0; step < 6; ++step) {
    EXPECT_EQ(cpu["1"][step].first, t0 + step * 10000);
    EXPECT_DOUBLE_EQ(cpu["1"][step].second, (10 * step + 1) / 100.0);
  }
}

TEST(PrometheusReceiverTest, MetricsPagePassesPromtool) {
  SKIP_WITHOUT_PROMETHEUS();
  // The counters of docs/prometheus.md's table, plus names built to trip promtool's lint rules.
  struct Counter {
    const char* object;
    const char* counter;
    uint32_t type;
  };
  const Counter kCounters[] = {
      {"Processor", "% Processor Time", wp::k100NsecTimerInv},
      {"Processor", "% Idle Time", wp::k100NsecTimer},
      {"PhysicalDisk", "Avg. Disk sec/Read", wp::kAverageTimer},
      {"PhysicalDisk", "Avg. Disk Bytes/Read", wp::kAverageBulk},
      {"PhysicalDisk", "Avg. Disk Queue Length", wp::kCounter100NsQueueLen},
      {"Network Interface", "Bytes Received/sec", wp::kCounterBulkCount},
      {"Network Interface", "Current Bandwidth", wp::kCounterRawcount},
      {"Process", "Handle Count", wp::kCounterRawcount},
      {"Process", "Thread Count", wp::kCounterRawcount},
      {"Process", "Elapsed Time", wp::kElapsedTime},
      {"Process", "Working Set - Private", wp::kCounterLargeRawcount},
      {"Memory", "Available MBytes", wp::kCounterRawcount},
      {"Memory", "Available KBytes", wp::kCounterRawcount},
      {"Memory", "Pages/sec", wp::kCounterCounter},
      {"Memory", "% Committed Bytes In Use", wp::kRawFraction},
      {"System", "System Up Time", wp::kElapsedTime},
      {"System", "Processes", wp::kCounterRawcount},
      {"Job Object", "Process Count", wp::kCounterRawcount},
      {"Server", "Errors Total", wp::kCounterRawcount},
      {"Hash", "Block Sum", wp::kCounterRawcount},
      {"Queue", "Processor's Load", wp::kCounterRawcount},
      {"Web Service", "Avg ms/Request", wp::kCounterRawcount},
      {"Thing", "Level D Hits", wp::kCounterRawcount},
      {"Cache", "Data Map Hits %", wp::kSampleFraction},
      {"LogicalDisk", "Free Megabytes", wp::kCounterRawcount},
      {"Terminal Services Session", "Total Time Minutes", wp::kCounterLargeRawcount},
  };
  MetricNamer namer;
  auto server = MetricsHttpServer::Start("127.0.0.1", 0, [&] {
    MetricsText text;
    for (const Counter& counter : kCounters) {
      ComputedSample sample =
          Computed(counter.object, counter.counter, counter.type, "svchost#1", 0, 42);
      sample.pid = 812;
      text.AddComputed(sample, namer);
    }
    text.Add("perfhive_export_samples_sent_total", MetricType::kCounter,
             "Samples the receiver accepted.", {{"receiver", "http://127.0.0.1:9/api/v1/write"}},
             18);
    text.Add("perfhive_export_lag_seconds", MetricType::kGauge,
             "Newest sample offered minus newest sample sent.", {{"receiver", "x\"y"}}, 0.5);
    return text.Render();
  });
  ASSERT_TRUE(server.ok()) << server.error();
  HttpClient client({});
  Result<HttpResponse> page =
      client.Get("http://127.0.0.1:" + std::to_string((*server)->port()) + "/metrics");
  ASSERT_TRUE(page.ok()) << page.error();
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("# TYPE pdh_process_handles gauge"), std::string::npos);

  TempDir dir;
  auto [exit_code, said] = testing::PromtoolCheckMetrics(dir.path(), page->body);
  ASSERT_TRUE(exit_code.has_value());
  EXPECT_EQ(*exit_code, 0) << said << "\n--- page:\n" << page->body;
}

}  // namespace
}  // namespace perfhive
