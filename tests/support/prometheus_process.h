// A real Debian `prometheus` for tests: started on 127.0.0.1 with its remote-write receiver and
// a storage directory the test owns, read back through its HTTP API, stopped by PID. Tests that
// need it skip when prometheus or promtool is not installed.

#ifndef PERFHIVE_TESTS_SUPPORT_PROMETHEUS_PROCESS_H_
#define PERFHIVE_TESTS_SUPPORT_PROMETHEUS_PROCESS_H_

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "export/http_client.h"
#include "tests/support/child_process.h"
#include "tests/support/temporary_folder.h"

namespace perfhive::testing {

inline constexpr const char* kPrometheusBinary = "/usr/bin/prometheus";
inline constexpr const char* kPromtoolBinary = "/usr/bin/promtool";

inline bool HavePrometheus() {
  return std::filesystem::exists(kPrometheusBinary) && std::filesystem::exists(kPromtoolBinary);
}

#define SKIP_WITHOUT_PROMETHEUS()                                                              \
  if (!::perfhive::testing::HavePrometheus()) {                                                \
    GTEST_SKIP() << ::perfhive::testing::kPrometheusBinary << " or "                           \
                 << ::perfhive::testing::kPromtoolBinary                                       \
                 << " is not installed (apt-get install prometheus; scripts/install-deps.sh)"; \
  }

// Client options that keep whole answers: query results and /metrics pages.
inline HttpClientOptions LargeBodies() {
  HttpClientOptions options;
  options.max_body_bytes = size_t{256} << 20;
  return options;
}

// Percent-encoding for a query parameter.
inline std::string UrlEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// A folder for a Prometheus' storage and the files a test gives it.
class PrometheusTempDir : public TemporaryFolder {
 public:
  PrometheusTempDir() : TemporaryFolder("perfhive-prom") {}
};

// (time ms, value) points of one series.
using PromPoints = std::vector<std::pair<int64_t, double>>;

// One series as the HTTP API answers it: its labels (with __name__) and its points.
struct PromSeries {
  std::map<std::string, std::string> labels;
  PromPoints points;
};

// The `promtool check metrics` verdict on a page: its exit code and what it said.
inline std::pair<std::optional<int>, std::string> PromtoolCheckMetrics(
    const std::filesystem::path& dir, const std::string& page) {
  std::filesystem::path page_file = dir / "metrics.txt";
  std::ofstream(page_file) << page;
  std::string out = (dir / "promtool.out").string();
  ChildProcess promtool(
      {"/bin/sh", "-c",
       std::string("exec ") + kPromtoolBinary + " check metrics < " + page_file.string()},
      out, out);
  std::optional<int> exit_code = promtool.Wait(std::chrono::milliseconds(30000));
  return {exit_code, ReadWholeFile(out)};
}

// One Prometheus on 127.0.0.1, storing under `dir` (kept across Stop and Start). Started on a
// port the kernel chooses (read back from its log) unless the test must know the port first;
// either way WaitReady checks that the server answering there is this one, by its storage path,
// so two tests whose ports collide fail saying so instead of writing into each other's store.
class Prometheus {
 public:
  explicit Prometheus(const std::filesystem::path& dir, uint16_t port = 0)
      : dir_(dir), port_(port) {
    std::filesystem::create_directories(dir / "data");
    std::ofstream(dir / "prometheus.yml") << "global: {scrape_interval: 15s}\n";
    log_ = (dir / "prometheus.log").string();
    Start();
  }
  ~Prometheus() {
    Stop();
    if (::testing::Test::HasFailure()) {
      std::string log = ReadWholeFile(log_);
      if (log.size() > 8000) log = "..." + log.substr(log.size() - 8000);
      std::fprintf(stderr, "the log of prometheus (%s):\n%s\n", log_.c_str(), log.c_str());
    }
  }

  void Start() {
    if (process_) return;
    process_.emplace(std::vector<std::string>{kPrometheusBinary,
                                              "--config.file=" + (dir_ / "prometheus.yml").string(),
                                              "--storage.tsdb.path=" + StoragePath(),
                                              "--web.listen-address=" + Address(),
                                              "--web.enable-remote-write-receiver"},
                     log_, log_);
  }

  void Stop() {
    if (!process_) return;
    process_->Signal(SIGTERM);
    if (!process_->Wait(std::chrono::milliseconds(20000))) process_->Signal(SIGKILL);
    process_.reset();
  }

  std::string Address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string WriteUrl() const { return "http://" + Address() + "/api/v1/write"; }

  bool WaitReady() {
    if (port_ == 0) {
      std::optional<std::string> port = WaitForMatch(
          log_, R"(msg="Listening on" address=127\.0\.0\.1:([0-9]+))", std::chrono::seconds(30));
      if (!port) {
        ADD_FAILURE() << "prometheus never said where it listens; its log:\n"
                      << ReadWholeFile(log_);
        return false;
      }
      port_ = static_cast<uint16_t>(std::stoi(*port));
    }
    HttpClient client({});
    for (int i = 0; i < 300 && process_ && process_->running(); ++i) {
      Result<HttpResponse> ready = client.Get("http://" + Address() + "/-/ready");
      if (ready.ok() && ready->status == 200) return IsThisOne(client);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "prometheus on " << Address() << " not ready"
                  << (process_ && !process_->running() ? " (it exited)" : "") << "; its log:\n"
                  << ReadWholeFile(log_);
    return false;
  }

  // query_range's points of every series `query` selects.
  std::vector<PromSeries> RangeSeries(const std::string& query, int64_t start_ms, int64_t end_ms,
                                      int64_t step_ms) {
    return Get("/api/v1/query_range?query=" + UrlEncode(query) + "&start=" + Seconds(start_ms) +
               "&end=" + Seconds(end_ms) + "&step=" + Seconds(step_ms));
  }

  // The same, by each series' `instance` label.
  std::map<std::string, PromPoints> Range(const std::string& query, int64_t start_ms,
                                          int64_t end_ms, int64_t step_ms) {
    std::map<std::string, PromPoints> points;
    for (PromSeries& series : RangeSeries(query, start_ms, end_ms, step_ms)) {
      points[series.labels["instance"]] = std::move(series.points);
    }
    return points;
  }

  // Every stored sample, at its own time, of the series `selector` selects in the `window_ms`
  // before `at_ms` (an instant query of a range vector: no resampling).
  std::vector<PromSeries> StoredSamples(const std::string& selector, int64_t at_ms,
                                        int64_t window_ms) {
    return Get(
        "/api/v1/query?query=" + UrlEncode(selector + "[" + std::to_string(window_ms) + "ms]") +
        "&time=" + Seconds(at_ms));
  }

 private:
  static std::string Seconds(int64_t ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ms) / 1000);
    return text;
  }

  std::string StoragePath() const { return (dir_ / "data").string(); }

  // Whether the Prometheus answering on Address() stores under this one's folder.
  bool IsThisOne(HttpClient& client) {
    Result<HttpResponse> flags = client.Get("http://" + Address() + "/api/v1/status/flags");
    std::string path;
    if (flags.ok() && flags->status == 200) {
      nlohmann::json json = nlohmann::json::parse(flags->body, nullptr, false);
      if (json.is_object() && json["data"]["storage.tsdb.path"].is_string()) {
        path = json["data"]["storage.tsdb.path"].get<std::string>();
      }
    }
    if (path == StoragePath()) return true;
    ADD_FAILURE() << "the prometheus answering on " << Address() << " stores under '" << path
                  << "', not this test's " << StoragePath() << ": another test took the same port";
    return false;
  }

  std::vector<PromSeries> Get(const std::string& path) {
    HttpClient client(LargeBodies());
    std::string url = "http://" + Address() + path;
    Result<HttpResponse> response = client.Get(url);
    std::vector<PromSeries> result;
    if (!response.ok() || response->status != 200) {
      ADD_FAILURE() << url << ": " << (response.ok() ? response->body : response.error());
      return result;
    }
    nlohmann::json json = nlohmann::json::parse(response->body);
    for (const auto& series : json["data"]["result"]) {
      PromSeries& out = result.emplace_back();
      for (const auto& [name, value] : series["metric"].items()) {
        out.labels[name] = value.get<std::string>();
      }
      for (const auto& value : series["values"]) {
        int64_t ms = std::llround(value[0].get<double>() * 1000);
        out.points.emplace_back(ms, std::stod(value[1].get<std::string>()));
      }
    }
    return result;
  }

  std::filesystem::path dir_;
  uint16_t port_;
  std::string log_;
  std::optional<ChildProcess> process_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_PROMETHEUS_PROCESS_H_
