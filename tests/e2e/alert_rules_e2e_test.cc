// The server's alerting rules end to end (issue 36): Windows hosts generated from the real
// machines of ../shared/fixtures (the fleet generator), one missing samples and one whose title
// database changes mid-run, replayed live (a sample a second) by real agents to a real server
// with --rules and --alertmanager pointing at a real Debian prometheus-alertmanager, which
// notifies a webhook the test serves. The server is restarted while alerts fire. Every alert the
// rules kept is compared with the runs an independent computation finds in the per-series
// answer of `perfhive query` over the same samples, and with what reached Alertmanager. Skips
// without the fixtures or Alertmanager.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "export/http_client.h"
#include "perfdata/time_text.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/support/alertmanager_process.h"
#include "tests/support/alertmanager_webhook.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::testing {
namespace {

using json = nlohmann::json;
constexpr int64_t kSecond = 1'000'000'000;
constexpr int kSamples = 40;  // a second apart
const std::string kPath = "\\Processor(_Total)\\% Processor Time";

struct LiveHost {
  std::string name;
  std::vector<std::string> replays;  // shipped one after the other
};

// Where the condition "> threshold" held in one series of `perfhive query --format json`,
// worked out here from its points: a run of consecutive valid values above it, held from the
// point before its first (the value was measured since then) to its last.
struct HeldRun {
  int64_t from_ms = 0;
  int64_t to_ms = 0;
  bool ongoing = false;  // it reaches the series' last point
};
std::vector<HeldRun> RunsAbove(const json& series, double threshold) {
  std::vector<HeldRun> runs;
  const json& times = series["times"];
  const json& values = series["values"];
  for (size_t k = 0; k < values.size(); ++k) {
    if (values[k].is_null() || values[k].get<double>() <= threshold) continue;
    HeldRun run;
    run.from_ms = (k > 0 ? times[k - 1] : times[k]).get<int64_t>();
    size_t last = k;
    while (last + 1 < values.size() && !values[last + 1].is_null() &&
           values[last + 1].get<double>() > threshold) {
      ++last;
    }
    run.to_ms = times[last].get<int64_t>();
    run.ongoing = last + 1 == values.size();
    runs.push_back(run);
    k = last;
  }
  return runs;
}

class AlertRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("realdata");
    SKIP_WITHOUT_ALERTMANAGER();
  }

  // Generates the hosts, `kSamples` each a second apart from `start_ns`, into replay folders.
  std::vector<LiveHost> GenerateHosts(const ScratchDir& scratch, int64_t start_ns) {
    Result<std::vector<fleet::MachineLayout>> layouts =
        fleet::LoadMachineLayouts(SharedFixturesRoot());
    EXPECT_TRUE(layouts.ok()) << layouts.error();
    if (!layouts.ok()) return {};
    auto shared = std::make_shared<const std::vector<fleet::MachineLayout>>(std::move(*layouts));
    fleet::FleetOptions options;
    options.seed = 36;
    options.hosts = 3;
    options.interval_ns = kSecond;
    options.start_unix_ns = start_ns;
    options.layouts = {"wprepw01", "kinex01", "wrxxcrpisax01"};
    Result<fleet::FleetGenerator> generator = fleet::FleetGenerator::Create(shared, options);
    EXPECT_TRUE(generator.ok()) << generator.error();
    if (!generator.ok()) return {};
    std::vector<LiveHost> hosts;
    for (int h = 0; h < options.hosts; ++h) {
      fleet::HostSimulator simulator = generator->StartHost(h);
      LiveHost host{simulator.profile().name, {}};
      std::vector<std::vector<uint8_t>> taken;
      for (int k = 0; k < kSamples; ++k) taken.push_back(simulator.Next().snapshot);
      const std::vector<uint8_t> titles = simulator.titles();
      if (h == 1) {
        // Down for five seconds in the middle.
        taken.erase(taken.begin() + kSamples / 2, taken.begin() + kSamples / 2 + 5);
      }
      if (h == 2) {
        // The title database changes half way (a provider installed): a second agent run.
        std::vector<std::vector<uint8_t>> second(taken.begin() + kSamples / 2, taken.end());
        taken.resize(kSamples / 2);
        host.replays.push_back(WriteReplayFiles(scratch, host.name + "-1", taken, titles).path);
        host.replays.push_back(WriteReplayFiles(scratch, host.name + "-2", second,
                                                WithANewTitle(titles, "Perfhive Test Provider"))
                                   .path);
      } else {
        host.replays.push_back(WriteReplayFiles(scratch, host.name, taken, titles).path);
      }
      hosts.push_back(host);
    }
    return hosts;
  }

  static std::vector<std::string> AgentArgs(const ServerProcess& server, const ScratchDir& scratch,
                                            const LiveHost& host, const std::string& replay,
                                            const std::string& interval) {
    return {
        AgentBinary(), "run",        "--server", server.address(), "--insecure",
        "--source",    "replay",     "--replay", replay,           "--host-name",
        host.name,     "--interval", interval,   "--spool-dir",    scratch / ("spool-" + host.name),
        "--timeout",   "120s"};
  }

  static json Cli(const ScratchDir& scratch, const ServerProcess& server,
                  std::vector<std::string> args) {
    args.insert(args.begin(), CliBinary());
    for (const char* flag : {"--server", "", "--insecure", "--format", "json"}) {
      args.push_back(std::string(flag).empty() ? server.address() : flag);
    }
    CommandResult answer = RunCommand(scratch, args);
    EXPECT_TRUE(answer.exit_code == 0 || answer.exit_code == 6) << answer.err;
    return json::parse(answer.out, nullptr, false);
  }
};

TEST_F(AlertRulesTest, RulesFireWhereTheQueryShowsTheConditionHeldAndReachAlertmanager) {
  ScratchDir scratch("alert-rules");
  // Samples a little ahead of the wall clock: an agent replaying a second at a time never falls
  // behind the rules' window on a loaded machine.
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t start_ns = (now_ns / kSecond + 15) * kSecond;
  std::vector<LiveHost> hosts = GenerateHosts(scratch, start_ns);
  ASSERT_EQ(hosts.size(), 3u);

  // The threshold: the median of every host's values, from a server of its own that took every
  // sample at once, so that the condition comes and goes.
  double threshold = 0;
  {
    ScratchDir probe_dir("alert-rules-probe");
    ServerProcess probe(probe_dir);
    ASSERT_TRUE(probe.Start());
    for (const LiveHost& host : hosts) {
      for (const std::string& replay : host.replays) {
        CommandResult shipped = RunCommand(
            probe_dir, AgentArgs(probe, probe_dir, host, replay, "5ms"), std::chrono::seconds(120));
        ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
      }
    }
    json answer = Cli(probe_dir, probe, {"query", "\\\\*" + kPath});
    std::vector<double> values;
    for (const json& series : answer["series"]) {
      for (const json& value : series["values"]) {
        if (!value.is_null()) values.push_back(value.get<double>());
      }
    }
    ASSERT_GT(values.size(), 60u);
    std::sort(values.begin(), values.end());
    threshold = values[values.size() / 2];
  }

  Webhook webhook;
  Alertmanager alertmanager(scratch / "alertmanager", webhook.Url());
  ASSERT_TRUE(alertmanager.Start());
  char threshold_text[32];
  std::snprintf(threshold_text, sizeof threshold_text, "%.17g", threshold);
  WriteText(scratch / "rules.toml", std::string(R"(interval = "1s"

[[rule]]
name = "Busy"
path = '\Processor(_Total)\% Processor Time'
condition = "> )") + threshold_text + R"("
for = "3s"
labels = { team = "windows" }
summary = "{host} at {value}%"

# Holds whenever a host sends: fires for every host and stays firing across the restart.
[[rule]]
name = "Reporting"
path = '\Processor(_Total)\% Processor Time'
condition = ">= 0"
for = "2s"
severity = "info"
)");
  const std::string metrics = "127.0.0.1:" + std::to_string(UnusedLoopbackPort());
  ServerProcess server(scratch, {"--insecure", "--rules", scratch / "rules.toml", "--alertmanager",
                                 alertmanager.Url(), "--metrics-listen", metrics});
  ASSERT_TRUE(server.Start());

  // Each host's agents, live: one sample a second; a host's second replay after its first.
  std::vector<ChildProcess> agents;
  for (const LiveHost& host : hosts) {
    std::string command;
    for (const std::string& replay : host.replays) {
      std::string line;
      for (const std::string& arg : AgentArgs(server, scratch, host, replay, "1s")) {
        line += "'" + arg + "' ";
      }
      command += (command.empty() ? "" : " && ") + line;
    }
    agents.emplace_back(std::vector<std::string>{"/bin/sh", "-c", command},
                        scratch / ("agent-" + host.name + ".log"),
                        scratch / ("agent-" + host.name + ".log"));
  }

  // Half way, while "Reporting" fires for every host, the server restarts.
  auto firing = [&](const std::string& rule) {
    std::map<std::string, int64_t> since;  // host → active since
    const json listing = Cli(scratch, server, {"alerts"});
    for (const json& alert : listing["alerts"]) {
      if (alert["rule"] == rule && alert["state"] == "firing") {
        since[alert["host"]] = alert["active_since_ms"].get<int64_t>();
      }
    }
    return since;
  };
  std::map<std::string, int64_t> before;
  ASSERT_TRUE(WaitUntil(
      [&] {
        before = firing("Reporting");
        return before.size() == hosts.size();
      },
      std::chrono::seconds(40)))
      << Cli(scratch, server, {"alerts"}).dump(1);
  for (const LiveHost& host : hosts) ASSERT_TRUE(webhook.WaitFor("firing", host.name));
  ASSERT_TRUE(server.Stop().has_value());
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(firing("Reporting"), before) << "a restart kept every firing alert with its start";

  for (ChildProcess& agent : agents) EXPECT_EQ(agent.Wait(std::chrono::seconds(120)), 0);
  std::this_thread::sleep_for(std::chrono::seconds(3));  // the evaluations after the last sample

  // The independent computation: runs above the threshold in each host's series.
  json answer =
      Cli(scratch, server, {"query", "\\\\*" + kPath, "--from", FormatRfc3339(start_ns - kSecond)});
  std::map<std::string, std::vector<HeldRun>> expected;
  for (const json& series : answer["series"]) {
    for (const HeldRun& run : RunsAbove(series, threshold)) {
      if (run.to_ms - run.from_ms >= 3000 || run.ongoing) {
        expected[series["host"].get<std::string>()].push_back(run);
      }
    }
  }
  ASSERT_EQ(answer["series"].size(), hosts.size());
  size_t fired = 0;
  std::map<std::string, std::vector<HeldRun>> kept;
  json listing = Cli(scratch, server, {"alerts"});
  for (const json& alert : listing["alerts"]) {
    if (alert["rule"] != "Busy") continue;
    EXPECT_EQ(alert["labels"]["team"], "windows");
    EXPECT_EQ(alert["labels"]["alertname"], "Busy");
    HeldRun run;
    run.from_ms = alert["active_since_ms"].get<int64_t>();
    run.ongoing = alert["state"] != "resolved";
    run.to_ms = run.ongoing ? 0 : alert["resolved_ms"].get<int64_t>();
    if (alert["state"] == "firing" || alert["state"] == "resolved") ++fired;
    kept[alert["host"].get<std::string>()].push_back(run);
  }
  for (auto& [host, runs] : expected) {
    for (HeldRun& run : runs) {
      if (run.ongoing) run.to_ms = 0;
    }
    std::sort(runs.begin(), runs.end(),
              [](const HeldRun& a, const HeldRun& b) { return a.from_ms < b.from_ms; });
  }
  for (auto& [host, runs] : kept) {
    std::sort(runs.begin(), runs.end(),
              [](const HeldRun& a, const HeldRun& b) { return a.from_ms < b.from_ms; });
  }
  auto text = [](const std::map<std::string, std::vector<HeldRun>>& by_host) {
    std::string out;
    for (const auto& [host, runs] : by_host) {
      for (const HeldRun& run : runs) {
        out += host + " " + std::to_string(run.from_ms) + ".." + std::to_string(run.to_ms) +
               (run.ongoing ? " ongoing\n" : "\n");
      }
    }
    return out;
  };
  EXPECT_EQ(text(kept), text(expected)) << "threshold " << threshold_text;
  EXPECT_GT(fired, 0u) << "the threshold never held for 3 s: the test would prove nothing";

  // What Alertmanager was told: every resolved Busy alert, with the rule's labels, once.
  for (const json& alert : listing["alerts"]) {
    if (alert["rule"] != "Busy" || alert["state"] != "resolved") continue;
    const std::string host = alert["host"];
    ASSERT_TRUE(WaitUntil([&] {
      for (const json& sent : webhook.Alerts()) {
        if (sent["status"] == "resolved" && sent["labels"]["alertname"] == "Busy" &&
            sent["labels"]["host"] == host) {
          return true;
        }
      }
      return false;
    })) << host;
  }
  // "Reporting" fired once per host: the restart sent the same alerts (same start), which
  // Alertmanager took as the ones it had.
  std::map<std::string, std::set<std::string>> starts;
  for (const json& sent : webhook.Alerts()) {
    if (sent["labels"]["alertname"] == "Reporting") {
      starts[sent["labels"]["host"]].insert(sent["startsAt"].get<std::string>());
    }
  }
  for (const LiveHost& host : hosts) EXPECT_EQ(starts[host.name].size(), 1u) << host.name;

  // /metrics counts them for Prometheus: "Reporting" fires for every host.
  HttpClientOptions whole_page;  // the page holds every host's counters too
  whole_page.max_body_bytes = size_t{256} << 20;
  HttpClient client(whole_page);
  Result<HttpResponse> page = client.Get("http://" + metrics + "/metrics");
  ASSERT_TRUE(page.ok() && page->status == 200) << (page.ok() ? page->body : page.error());
  std::string rule_lines;  // the page's lines about rules and alerts, not the hosts' counters
  for (size_t at = 0; at < page->body.size();) {
    const size_t end = page->body.find('\n', at);
    const std::string line = page->body.substr(at, end - at);
    if (line.starts_with("perfhive_alert") || line.starts_with("perfhive_rule")) {
      rule_lines += line + "\n";
    }
    at = end == std::string::npos ? page->body.size() : end + 1;
  }
  EXPECT_THAT(rule_lines,
              ::testing::HasSubstr("perfhive_alerts{severity=\"info\",state=\"firing\"} 3\n"));
  EXPECT_THAT(rule_lines, ::testing::HasSubstr("perfhive_rule_series_checked{rule=\"Busy\"} 3\n"));
  EXPECT_THAT(rule_lines, ::testing::HasSubstr("perfhive_rules 2\n"));
  EXPECT_THAT(rule_lines, ::testing::HasSubstr("perfhive_rules_file_unreadable 0\n"));
}

}  // namespace
}  // namespace perfhive::testing
