// End to end against the real Debian `prometheus` (started here on loopback with its
// remote-write receiver, stopped by PID) and a real perfhive-server process exporting to it: a
// procfs host's real snapshots go in over gRPC; the samples Prometheus stores are then exactly
// the values `perfhive query` (the CLI, as a user runs it) shows for the same times, converted as
// docs/prometheus.md says (percent to ratio). Across a kill -9 and restart of perfhive-server
// Prometheus' series have no gap; a Prometheus that is down for a while gets the backlog when it
// is back; /metrics passes `promtool check metrics` and honours --export-include/exclude.

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>

#include "perfdata/snapshot_reader.h"
#include "perfdata/time_text.h"
#include "sources/procfs/procfs_source.h"
#include "tests/server/server_fixture.h"
#include "tests/support/answer_points.h"
#include "tests/support/prometheus_process.h"

namespace perfhive {
namespace {

namespace v1 = perfhive::v1;
using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::AnswerPoint;
using testing::AnswerPoints;
using testing::ChildProcess;
using testing::IngestClient;
using testing::Prometheus;
using testing::ReadWholeFile;
using testing::WaitForMatch;
using TempDir = testing::PrometheusTempDir;

constexpr char kHost[] = "linuxbox";

int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A perfhive-server process on free loopback ports over `data`; restartable on the same data.
class ServerUnderTest {
 public:
  ServerUnderTest(std::filesystem::path dir, std::vector<std::string> flags)
      : dir_(std::move(dir)), flags_(std::move(flags)) {}

  bool Start() {
    std::string out = (dir_ / ("server-" + std::to_string(++starts_) + ".log")).string();
    std::vector<std::string> argv = {
        PERFHIVE_SERVER_BINARY,   "--listen",   "127.0.0.1:0",      "--data",
        (dir_ / "data").string(), "--insecure", "--metrics-listen", "127.0.0.1:0"};
    argv.insert(argv.end(), flags_.begin(), flags_.end());
    process_.emplace(argv, out, out);
    std::optional<std::string> address =
        WaitForMatch(out, "listening on (127\\.0\\.0\\.1:[0-9]+)", seconds(30));
    std::optional<std::string> metrics =
        WaitForMatch(out, "metrics on http://(127\\.0\\.0\\.1:[0-9]+)/metrics", seconds(30));
    if (!address || !metrics) {
      ADD_FAILURE() << "perfhive-server did not start:\n" << ReadWholeFile(out);
      return false;
    }
    address_ = *address;
    metrics_url_ = "http://" + *metrics + "/metrics";
    log_ = out;
    return true;
  }
  void Kill9() {
    process_->Signal(SIGKILL);
    process_->Wait(seconds(10));
    process_.reset();
  }
  const std::string& address() const { return address_; }
  const std::string& log() const { return log_; }

  std::string Metrics() {
    HttpClient client(testing::LargeBodies());
    Result<HttpResponse> page = client.Get(metrics_url_);
    EXPECT_TRUE(page.ok() && page->status == 200) << (page.ok() ? page->body : page.error());
    return page.ok() ? page->body : "";
  }

 private:
  std::filesystem::path dir_;
  std::vector<std::string> flags_;
  int starts_ = 0;
  std::string address_;
  std::string metrics_url_;
  std::string log_;
  std::optional<ChildProcess> process_;
};

// This machine's /proc as a host, shipped as an agent would: one stream per server run.
class ProcfsFeeder {
 public:
  // `labels`: the host's, as its agent's Hello gives them.
  explicit ProcfsFeeder(std::map<std::string, std::string> labels = {})
      : labels_(std::move(labels)) {
    Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
    EXPECT_TRUE(source.ok()) << source.error();
    source_ = std::move(source).value();
    Result<std::vector<TitleBytes>> titles = source_->ReadTitles();
    EXPECT_TRUE(titles.ok()) << titles.error();
    titles_ = std::move(titles).value().front();
  }

  // Sends `count` snapshots one second apart and waits for each one's acknowledgement.
  void Send(const std::string& address, int count) {
    IngestClient client(address);
    ASSERT_TRUE(client.Hello(kHost, "e2e-run", {titles_}, labels_));
    v1::ServerMessage reply;
    ASSERT_TRUE(client.Receive(&reply));
    ASSERT_TRUE(reply.has_welcome()) << reply.DebugString();
    if (!reply.welcome().needed_titles().empty()) {
      ASSERT_TRUE(client.Titles(titles_));
    }
    for (int i = 0; i < count; ++i) {
      if (sequence_ > 0) std::this_thread::sleep_for(seconds(1));
      Result<std::vector<uint8_t>> raw = source_->TakeSnapshot("Global");
      ASSERT_TRUE(raw.ok()) << raw.error();
      ASSERT_TRUE(
          client.Send(IngestClient::SnapshotMessage("e2e-run", ++sequence_, *raw, &titles_)));
      ASSERT_TRUE(client.Receive(&reply));
      ASSERT_TRUE(reply.has_ack()) << reply.DebugString();
    }
    client.Finish();
  }

 private:
  const std::map<std::string, std::string> labels_;
  std::unique_ptr<ProcfsSource> source_;
  TitleBytes titles_;
  uint64_t sequence_ = 0;
};

// One value as both sides key it: the series (instance, or pid for processes), its time in ms.
using Keyed = std::tuple<std::string, int64_t, double>;

// Kernel workers rename themselves after the work queue they serve, so one comes back under a
// name it had a few samples before: `perfhive query` computes that point over the longer
// interval from its older sample, which the exporter does not load (docs/prometheus.md).
bool RenamesItself(const std::string& instance) { return instance.starts_with("kworker"); }

// The valid points `perfhive query` shows for `path` over [from_ms, now], keyed by `key` ("pid" or
// "instance"), with the value divided by `divisor`.
std::vector<Keyed> PerfhiveQuery(const std::filesystem::path& dir, const std::string& server,
                                 const std::string& path, int64_t from_ms, const char* key,
                                 double divisor) {
  std::string out = (dir / "query.json").string();
  std::filesystem::remove(out);
  ChildProcess cli({PERFHIVE_CLI_BINARY, "query", "--server", server, "--insecure", "--format",
                    "json", "--from", FormatRfc3339(from_ms * 1'000'000), path},
                   out, (dir / "query.err").string());
  std::optional<int> exit_code = cli.Wait(seconds(60));
  EXPECT_EQ(exit_code, 0) << ReadWholeFile((dir / "query.err").string());
  std::vector<Keyed> values;
  nlohmann::json answer = nlohmann::json::parse(ReadWholeFile(out));
  for (const auto& series : answer["series"]) {
    if (RenamesItself(series["instance"].is_string() ? series["instance"].get<std::string>()
                                                     : "")) {
      continue;
    }
    std::string name;
    if (series.contains(key) && !series[key].is_null()) {
      name = series[key].is_string() ? series[key].get<std::string>()
                                     : std::to_string(series[key].get<int64_t>());
    }
    for (const AnswerPoint& point : AnswerPoints(series)) {
      if (point.value) values.emplace_back(name, point.time_ms, *point.value / divisor);
    }
  }
  std::sort(values.begin(), values.end());
  return values;
}

// Every sample Prometheus stores for `metric` of the host, keyed by label `key`.
std::vector<Keyed> PrometheusHolds(Prometheus& prometheus, const std::string& metric,
                                   const char* key) {
  std::vector<Keyed> values;
  for (testing::PromSeries& series : prometheus.StoredSamples(metric + "{host=\"" + kHost + "\"}",
                                                              NowMs() + 60'000, 2 * 3600 * 1000)) {
    if (RenamesItself(series.labels["instance"])) continue;
    auto label = series.labels.find(key);
    std::string name = label == series.labels.end() ? "" : label->second;
    for (const auto& [ms, value] : series.points) values.emplace_back(name, ms, value);
  }
  std::sort(values.begin(), values.end());
  return values;
}

struct Checked {
  const char* path;
  const char* metric;
  const char* key;
  double divisor;
};
// A percentage per processor, one per process (by PID), and one counter of an object without
// instances.
const Checked kChecked[] = {
    {"\\Processor(*)\\% Processor Time", "pdh_processor_processor_time_ratio", "instance", 100},
    {"\\Process(*)\\% Processor Time", "pdh_process_processor_time_ratio", "pid", 100},
    {"\\Memory\\Available Bytes", "pdh_memory_available_bytes", "instance", 1},
};

// Waits until Prometheus holds what perfhive query shows for every checked counter, then
// compares them all.
void ExpectPrometheusHoldsWhatPerfhiveQueryShows(const std::filesystem::path& dir,
                                                 Prometheus& prometheus,
                                                 const ServerUnderTest& server, int64_t from_ms) {
  for (const Checked& checked : kChecked) {
    std::vector<Keyed> expected =
        PerfhiveQuery(dir, server.address(), checked.path, from_ms, checked.key, checked.divisor);
    ASSERT_FALSE(expected.empty()) << checked.path;
    std::vector<Keyed> held;
    for (int i = 0; i < 600; ++i) {
      held = PrometheusHolds(prometheus, checked.metric, checked.key);
      if (held.size() >= expected.size()) break;
      std::this_thread::sleep_for(milliseconds(100));
    }
    EXPECT_EQ(held.size(), expected.size()) << checked.metric;
    std::vector<Keyed> missing, extra;
    std::set_difference(expected.begin(), expected.end(), held.begin(), held.end(),
                        std::back_inserter(missing));
    std::set_difference(held.begin(), held.end(), expected.begin(), expected.end(),
                        std::back_inserter(extra));
    EXPECT_TRUE(missing.empty() && extra.empty())
        << checked.metric << ": " << missing.size() << " values missing from Prometheus (first: "
        << (missing.empty()
                ? ""
                : std::get<0>(missing[0]) + " @" + std::to_string(std::get<1>(missing[0])) + " = " +
                      std::to_string(std::get<2>(missing[0])))
        << "), " << extra.size() << " not shown by perfhive query; the server's log:\n"
        << ReadWholeFile(server.log());
  }
}

// The value of the sample `name` with `labels` (exact text, "" for none) on a /metrics page.
std::optional<double> PageValue(const std::string& page, const std::string& series) {
  std::istringstream lines(page);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with(series + " ")) return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

TEST(PrometheusExportE2eTest, PrometheusHoldsPerfhiveQueryValuesAcrossAKillNineAndRestart) {
  SKIP_WITHOUT_PROMETHEUS();
  TempDir dir;
  Prometheus prometheus(dir.path() / "prometheus");
  ASSERT_TRUE(prometheus.WaitReady());
  ServerUnderTest server(dir.path(), {"--remote-write", prometheus.WriteUrl()});
  ASSERT_TRUE(server.Start());
  const int64_t from_ms = NowMs() - 5000;
  ProcfsFeeder feeder;
  feeder.Send(server.address(), 5);
  ExpectPrometheusHoldsWhatPerfhiveQueryShows(dir.path(), prometheus, server, from_ms);

  // Three more, acknowledged (durable), then the server is killed before it may export them.
  feeder.Send(server.address(), 3);
  server.Kill9();
  ASSERT_TRUE(server.Start());
  feeder.Send(server.address(), 3);
  ExpectPrometheusHoldsWhatPerfhiveQueryShows(dir.path(), prometheus, server, from_ms);
  EXPECT_NE(ReadWholeFile(server.log()).find("hosts_resumed=1"), std::string::npos)
      << ReadWholeFile(server.log());

  // The page of a server that exported: values, its own metrics, and promtool's approval.
  std::string page = server.Metrics();
  EXPECT_EQ(PageValue(page, "perfhive_ingest_snapshots_stored_total"), 3);  // since the restart
  EXPECT_EQ(PageValue(page, "perfhive_store_snapshots"), 11);
  EXPECT_TRUE(PageValue(
      page, std::string("perfhive_host_last_seen_timestamp_seconds{host=\"") + kHost + "\"}"));
  std::string receiver = "{receiver=\"" + prometheus.WriteUrl() + "\"}";
  EXPECT_GT(PageValue(page, "perfhive_export_samples_sent_total" + receiver).value_or(0), 0);
  EXPECT_TRUE(PageValue(page, "perfhive_export_lag_seconds" + receiver));
  EXPECT_TRUE(PageValue(page, std::string("pdh_memory_available_bytes{host=\"") + kHost + "\"}"));
  auto [exit_code, said] = testing::PromtoolCheckMetrics(dir.path(), page);
  ASSERT_TRUE(exit_code.has_value());
  EXPECT_EQ(*exit_code, 0) << said;
}

TEST(PrometheusExportE2eTest, BacklogArrivesWhenPrometheusIsBack) {
  SKIP_WITHOUT_PROMETHEUS();
  TempDir dir;
  Prometheus prometheus(dir.path() / "prometheus");
  ASSERT_TRUE(prometheus.WaitReady());
  ServerUnderTest server(dir.path(), {"--remote-write", prometheus.WriteUrl()});
  ASSERT_TRUE(server.Start());
  const int64_t from_ms = NowMs() - 5000;
  ProcfsFeeder feeder;
  feeder.Send(server.address(), 3);
  ExpectPrometheusHoldsWhatPerfhiveQueryShows(dir.path(), prometheus, server, from_ms);

  prometheus.Stop();
  feeder.Send(server.address(), 5);
  std::string receiver = "{receiver=\"" + prometheus.WriteUrl() + "\"}";
  std::optional<double> failed;
  for (int i = 0; i < 100 && failed.value_or(0) == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(100));
    failed = PageValue(server.Metrics(), "perfhive_export_samples_failed_total" + receiver);
  }
  EXPECT_GT(failed.value_or(0), 0);
  EXPECT_GT(PageValue(server.Metrics(), "perfhive_export_samples_pending" + receiver).value_or(0),
            0);

  prometheus.Start();
  ASSERT_TRUE(prometheus.WaitReady());
  ExpectPrometheusHoldsWhatPerfhiveQueryShows(dir.path(), prometheus, server, from_ms);
}

// The host's labels (its agent's, its policy's over them) are on every series Prometheus holds
// and on /metrics; one named like a series' own label is prefixed (docs/prometheus.md).
TEST(PrometheusExportE2eTest, ExportedSeriesCarryTheHostsLabels) {
  SKIP_WITHOUT_PROMETHEUS();
  TempDir dir;
  Prometheus prometheus(dir.path() / "prometheus");
  ASSERT_TRUE(prometheus.WaitReady());
  const std::string policies = (dir.path() / "policies.toml").string();
  std::ofstream(policies) << "[[policy]]\nname = \"fra\"\nhosts = [\"linux*\"]\n"
                             "labels = { site = \"fra\", instance = \"blue\" }\n";
  ServerUnderTest server(dir.path(), {"--remote-write", prometheus.WriteUrl(), "--policies",
                                      policies, "--export-include", "\\Memory\\*"});
  ASSERT_TRUE(server.Start());
  ProcfsFeeder feeder({{"role", "web"}, {"site", "ams"}});
  feeder.Send(server.address(), 3);
  std::vector<testing::PromSeries> held;
  for (int i = 0; i < 300 && held.empty(); ++i) {
    held =
        prometheus.StoredSamples("pdh_memory_available_bytes{host=\"" + std::string(kHost) + "\"}",
                                 NowMs() + 60'000, 2 * 3600 * 1000);
    if (held.empty()) std::this_thread::sleep_for(milliseconds(100));
  }
  ASSERT_EQ(held.size(), 1u) << ReadWholeFile(server.log());
  EXPECT_EQ(held[0].labels["role"], "web");
  EXPECT_EQ(held[0].labels["site"], "fra");
  EXPECT_EQ(held[0].labels["label_instance"], "blue");
  EXPECT_EQ(held[0].labels.count("instance"), 0u);  // Memory has no instances
  EXPECT_FALSE(held[0].points.empty());
  std::string page = server.Metrics();
  EXPECT_NE(page.find("\npdh_memory_available_bytes{host=\"linuxbox\",label_instance=\"blue\","
                      "role=\"web\",site=\"fra\"}"),
            std::string::npos)
      << page;
  auto [exit_code, said] = testing::PromtoolCheckMetrics(dir.path(), page);
  ASSERT_TRUE(exit_code.has_value());
  EXPECT_EQ(*exit_code, 0) << said;
}

TEST(PrometheusExportE2eTest, MetricsPageShowsOnlyTheSelectedCounters) {
  TempDir dir;
  ServerUnderTest server(
      dir.path(), {"--export-include", "\\Processor(*)\\*", "--export-include", "\\Memory\\*",
                   "--export-exclude", "\\Processor(*)\\% User Time"});
  ASSERT_TRUE(server.Start());
  ProcfsFeeder feeder;
  feeder.Send(server.address(), 2);
  std::string page = server.Metrics();
  EXPECT_NE(
      page.find("\npdh_processor_processor_time_ratio{host=\"linuxbox\",instance=\"_Total\"}"),
      std::string::npos)
      << page;
  EXPECT_NE(page.find("\npdh_memory_available_bytes{host=\"linuxbox\"}"), std::string::npos);
  EXPECT_NE(page.find("\npdh_processor_privileged_time_ratio{"), std::string::npos);
  EXPECT_EQ(page.find("pdh_processor_user_time_ratio"), std::string::npos);
  EXPECT_EQ(page.find("pdh_process_"), std::string::npos);
  EXPECT_EQ(page.find("pdh_system_"), std::string::npos);
}

}  // namespace
}  // namespace perfhive
