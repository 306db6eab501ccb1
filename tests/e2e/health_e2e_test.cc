// The fleet's counter health end to end (issue 37): Windows hosts generated from a real machine
// of ../shared/fixtures (the fleet generator), with faults injected into what their agents ship:
// one loses Memory half way, one's title database lacks a name its snapshots use and one of its
// counters reports garbage from a sample on, one's provider goes and comes back and later one
// instance of another object goes and comes back; a clean one, and one of another role and
// machine. Real agents replay them
// to a real server; `perfhive health` and /api/v1/health must name exactly those faults, their
// hosts and their times, and the clean hosts not at all. Skips without the fixtures.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "export/http_client.h"
#include "perfdata/instance_gaps.h"
#include "perfdata/snapshot_inventory.h"
#include "perfdata/well_known_indexes.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/machine_layout.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/support/shared_fixtures.h"
#include "tests/support/snapshot_edits.h"

namespace perfhive::testing {
namespace {

using json = nlohmann::json;
constexpr int64_t kSecond = 1'000'000'000;
constexpr int kSamples = 40;  // 10 s apart
constexpr int kMemoryLostAt = 10;
constexpr int kFlapFrom = 8, kFlapTo = 12;  // the provider's object is missing from 8 to 11
// From this sample on, one 8-byte count of web2 goes backwards at every sample: its first pair
// without a valid value ends at the sample after (the edited sample is above the one before).
constexpr int kGarbageFrom = 13;
// web3's instance is missing from these two samples, after more than five minutes there (what
// makes an instance's absence a gap rather than churn: perfdata/instance_gaps.h).
constexpr int kInstanceGoneFrom = 33, kInstanceBackAt = 35;

struct ShippedHost {
  std::string name;
  std::string role;
  std::vector<int64_t> times_ns;  // of its samples
  std::string replay;
};

class HealthTest : public ::testing::Test {
 protected:
  void SetUp() override { PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("realdata"); }

  // The hosts, generated and faulted, written as replay folders.
  void Generate(int64_t start_ns) {
    Result<std::vector<fleet::MachineLayout>> layouts =
        fleet::LoadMachineLayouts(SharedFixturesRoot());
    ASSERT_TRUE(layouts.ok()) << layouts.error();
    auto shared = std::make_shared<const std::vector<fleet::MachineLayout>>(std::move(*layouts));
    for (const auto& [layout, count, role] :
         {std::tuple{"wprepw01", 4, "web"}, std::tuple{"kinex01", 1, "app"}}) {
      fleet::FleetOptions options;
      options.seed = 37;
      options.hosts = count;
      options.interval_ns = 10 * kSecond;
      options.start_unix_ns = start_ns;
      options.layouts = {layout};
      options.title_change_probability = 0;
      Result<fleet::FleetGenerator> generator = fleet::FleetGenerator::Create(shared, options);
      ASSERT_TRUE(generator.ok()) << generator.error();
      for (int h = 0; h < count; ++h) {
        fleet::HostSimulator simulator = generator->StartHost(h);
        ShippedHost host{role + std::to_string(h), role, {}, ""};
        std::vector<std::vector<uint8_t>> taken;
        for (int k = 0; k < kSamples; ++k) {
          taken.push_back(simulator.Next().snapshot);
          host.times_ns.push_back(WallClockMilliseconds(taken.back()) * 1'000'000);
        }
        std::vector<uint8_t> titles = simulator.titles();
        if (host.name == "web1") {
          for (int k = kMemoryLostAt; k < kSamples; ++k) {
            Result<std::vector<uint8_t>> without = WithoutObject(taken[k], title_index::kMemory);
            ASSERT_TRUE(without.ok()) << without.error();
            taken[k] = std::move(without).value();
          }
        }
        if (host.name == "web2") {
          Result<std::vector<uint8_t>> damaged =
              TitlesWithoutName(titles, title_index::kPercentProcessorTime);
          ASSERT_TRUE(damaged.ok()) << damaged.error();
          titles = std::move(damaged).value();
          ASSERT_NO_FATAL_FAILURE(PickGarbageCounter(taken[0]));
          for (int k = kGarbageFrom; k < kSamples; ++k) {
            Result<std::vector<uint8_t>> garbage =
                WithCounterValue(taken[k], garbage_object_, garbage_counter_,
                                 (uint64_t{1} << 62) - static_cast<uint64_t>(k) * 1000);
            ASSERT_TRUE(garbage.ok()) << garbage.error();
            taken[k] = std::move(garbage).value();
          }
        }
        if (host.name == "web3") {
          const SnapshotInventory inventory = InventoryOf(*SnapshotReader::Open(taken[0]));
          for (const ObjectInventory& object : inventory.objects) {
            if (object.index != title_index::kMemory && object.index != title_index::kProcess &&
                !std::binary_search(object.counters.begin(), object.counters.end(),
                                    title_index::kPercentProcessorTime)) {
              flapping_ = object.index;
            }
          }
          ASSERT_NE(flapping_, 0u);
          for (int k = kFlapFrom; k < kFlapTo; ++k) {
            Result<std::vector<uint8_t>> without = WithoutObject(taken[k], flapping_);
            ASSERT_TRUE(without.ok()) << without.error();
            taken[k] = std::move(without).value();
          }
          ASSERT_NO_FATAL_FAILURE(PickGoneInstance(taken[0], titles));
          for (int k = kInstanceGoneFrom; k < kInstanceBackAt; ++k) {
            Result<std::vector<uint8_t>> without =
                WithoutInstance(taken[k], gone_object_, gone_instance_);
            ASSERT_TRUE(without.ok()) << without.error();
            taken[k] = std::move(without).value();
          }
        }
        host.replay = WriteReplayFiles(*scratch_, host.name, taken, titles).path;
        hosts_.push_back(host);
      }
    }
  }

  // The first 8-byte count (PERF_COUNTER_BULK_COUNT) of an object that does not use the index
  // web2's titles lack, so that the finding names it by name.
  void PickGarbageCounter(const std::vector<uint8_t>& raw) {
    Result<SnapshotReader> reader = SnapshotReader::Open(raw);
    ASSERT_TRUE(reader.ok()) << reader.error();
    for (const ObjectView& object : reader->objects()) {
      bool unnamed = false;
      for (const CounterDefinitionView& counter : object.counters()) {
        unnamed = unnamed || counter.name_index() == title_index::kPercentProcessorTime;
      }
      if (unnamed || object.num_instances() < winperf::kNoInstances) continue;
      for (const CounterDefinitionView& counter : object.counters()) {
        if (counter.type() == winperf::kCounterBulkCount && counter.size() == 8) {
          garbage_object_ = object.name_index();
          garbage_counter_ = counter.name_index();
          return;
        }
      }
    }
    FAIL() << "no 8-byte count in the layout";
  }

  // An instance (not _Total) of an object other than the flapping one, with instances that no
  // other object's instances name as their parent; and the object's English name.
  void PickGoneInstance(const std::vector<uint8_t>& raw, const std::vector<uint8_t>& titles) {
    Result<SnapshotReader> reader = SnapshotReader::Open(raw);
    ASSERT_TRUE(reader.ok()) << reader.error();
    std::set<uint32_t> parents;
    for (const ObjectView& object : reader->objects()) {
      for (const InstanceView& instance : object.instances()) {
        if (instance.has_definition() && instance.parent_object_index() != 0) {
          parents.insert(instance.parent_object_index());
        }
      }
    }
    TitleDatabase names;
    ASSERT_TRUE(ParseTitleList(titles, false, names).ok());
    for (const ObjectView& object : reader->objects()) {
      if (object.name_index() == flapping_ || parents.contains(object.name_index()) ||
          object.num_instances() < 2 || object.num_instances() > kMostInstancesFollowed) {
        continue;
      }
      for (const InstanceView& instance : object.instances()) {
        const std::string name = InstanceName(object, instance);
        if (name.empty() || name == "_Total") continue;
        gone_object_ = object.name_index();
        gone_instance_ = name;
        gone_object_name_ = std::string(names.Name(gone_object_).value_or(""));
        return;
      }
    }
    FAIL() << "no instance to take away in the layout";
  }

  void Ship() {
    for (const ShippedHost& host : hosts_) {
      CommandResult shipped =
          RunCommand(*scratch_,
                     {AgentBinary(), "run", "--server", server_->address(), "--insecure",
                      "--source", "replay", "--replay", host.replay, "--host-name", host.name,
                      "--interval", "5ms", "--label", "role=" + host.role, "--spool-dir",
                      *scratch_ / ("spool-" + host.name), "--timeout", "90s"},
                     std::chrono::seconds(120));
      ASSERT_EQ(shipped.exit_code, 0) << host.name << ": " << shipped.err;
    }
  }

  CommandResult Health(std::vector<std::string> args) {
    std::vector<std::string> argv = {CliBinary(), "health"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--server", server_->address(), "--insecure"});
    return RunCommand(*scratch_, argv);
  }

  const ShippedHost& Host(const std::string& name) const {
    return *std::find_if(hosts_.begin(), hosts_.end(),
                         [&](const ShippedHost& host) { return host.name == name; });
  }

  std::unique_ptr<ScratchDir> scratch_;
  std::unique_ptr<ServerProcess> server_;
  std::vector<ShippedHost> hosts_;
  uint32_t flapping_ = 0;
  uint32_t garbage_object_ = 0, garbage_counter_ = 0;
  uint32_t gone_object_ = 0;
  std::string gone_instance_, gone_object_name_;
};

int64_t Millis(int64_t ns) { return ns / 1'000'000; }

TEST_F(HealthTest, EachInjectedFaultIsReportedOnItsHostAtItsSampleAndNothingElse) {
  scratch_ = std::make_unique<ScratchDir>("health");
  // Half an hour ago: new against the default day, old against the last minute.
  const int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  ASSERT_NO_FATAL_FAILURE(Generate((now_ns / kSecond - 1800) * kSecond));
  server_ = std::make_unique<ServerProcess>(
      *scratch_, std::vector<std::string>{"--insecure", "--http-listen", "127.0.0.1:0",
                                          "--metrics-listen", "127.0.0.1:0"});
  ASSERT_TRUE(server_->Start());
  ASSERT_NO_FATAL_FAILURE(Ship());

  CommandResult answer = Health({"--format", "json"});
  EXPECT_EQ(answer.exit_code, 6) << answer.err;  // findings newer than a day
  const json report = json::parse(answer.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << answer.out << answer.err;
  EXPECT_EQ(report["hosts"].size(), hosts_.size());

  std::set<std::string> faulted_hosts;
  int unnamed = 0;
  bool memory_found = false, flap_found = false, garbage_found = false, instance_found = false;
  for (const json& finding : report["findings"]) {
    const std::string kind = finding["kind"];
    SCOPED_TRACE(finding.dump());
    ASSERT_EQ(finding["hosts"].size(), 1u);
    const json& host = finding["hosts"][0];
    faulted_hosts.insert(host["host"].get<std::string>());
    if (kind == "object-missing") {
      // web1, beside its three peers; since its first sample without, last with the one before.
      EXPECT_EQ(finding["object"], "Memory");
      EXPECT_EQ(finding["peers"], "unknown OS role=web");
      EXPECT_EQ(finding["peers_with"], 3);
      EXPECT_EQ(host["host"], "web1");
      EXPECT_EQ(host["since_ms"], Millis(Host("web1").times_ns[kMemoryLostAt]));
      EXPECT_EQ(host["last_with_ms"], Millis(Host("web1").times_ns[kMemoryLostAt - 1]));
      EXPECT_EQ(host["cause"], "its provider stopped returning it");
      memory_found = true;
    } else if (kind == "unnamed-index") {
      EXPECT_EQ(host["host"], "web2");
      EXPECT_EQ(finding["counter"], "6");
      EXPECT_NE(host["cause"].get<std::string>().find("Processor"), std::string::npos);
      EXPECT_EQ(host["since_ms"], Millis(Host("web2").times_ns[0]));
      ++unnamed;
    } else if (kind == "object-came-and-went") {
      EXPECT_EQ(host["host"], "web3");
      ASSERT_EQ(host["gaps"].size(), 1u);
      EXPECT_EQ(host["gaps"][0]["gone_ms"], Millis(Host("web3").times_ns[kFlapFrom]));
      EXPECT_EQ(host["gaps"][0]["back_ms"], Millis(Host("web3").times_ns[kFlapTo]));
      flap_found = true;
    } else if (kind == "instance-came-and-went") {
      EXPECT_EQ(host["host"], "web3");
      EXPECT_EQ(finding["object"], gone_object_name_);
      EXPECT_EQ(finding["counter"], gone_instance_);
      EXPECT_EQ(host["since_ms"], Millis(Host("web3").times_ns[kInstanceGoneFrom]));
      ASSERT_EQ(host["gaps"].size(), 1u);
      EXPECT_EQ(host["gaps"][0]["gone_ms"], Millis(Host("web3").times_ns[kInstanceGoneFrom]));
      EXPECT_EQ(host["gaps"][0]["back_ms"], Millis(Host("web3").times_ns[kInstanceBackAt]));
      instance_found = true;
    } else if (kind == "counter-invalid") {
      // Named by web2's titles; since the first sample without a valid value, the last with one
      // the sample before.
      EXPECT_EQ(host["host"], "web2");
      EXPECT_FALSE(finding["object"].get<std::string>().empty());
      EXPECT_NE(finding["object"], std::to_string(garbage_object_));
      EXPECT_NE(finding["counter"], std::to_string(garbage_counter_));
      EXPECT_EQ(host["since_ms"], Millis(Host("web2").times_ns[kGarbageFrom + 1]));
      EXPECT_EQ(host["last_with_ms"], Millis(Host("web2").times_ns[kGarbageFrom]));
      EXPECT_NE(host["cause"].get<std::string>().find("PDH_CALC_NEGATIVE_VALUE"),
                std::string::npos);
      garbage_found = true;
    } else {
      ADD_FAILURE() << "a finding of no injected fault";
    }
  }
  EXPECT_TRUE(memory_found);
  EXPECT_TRUE(flap_found);
  EXPECT_TRUE(garbage_found);
  EXPECT_TRUE(instance_found);
  EXPECT_EQ(unnamed, 1);
  EXPECT_EQ(faulted_hosts, (std::set<std::string>{"web1", "web2", "web3"}));

  // The API answers the same document.
  HttpClient client{HttpClientOptions{}};
  Result<HttpResponse> api =
      client.Get(ListeningUrl(*server_, "console") +
                 "/api/v1/health?at=" + std::to_string(report["at_ms"].get<int64_t>()) +
                 "&from=" + std::to_string(report["from_ms"].get<int64_t>()));
  ASSERT_TRUE(api.ok()) << api.error();
  ASSERT_EQ(api->status, 200) << api->body;
  EXPECT_EQ(json::parse(api->body)["findings"], report["findings"]);

  // /metrics counts them by kind and by host, 0 included.
  HttpClientOptions large;
  large.max_body_bytes = size_t{64} << 20;  // every counter of five hosts
  HttpClient metrics_client(large);
  Result<HttpResponse> metrics = metrics_client.Get(ListeningUrl(*server_, "metrics") + "/metrics");
  ASSERT_TRUE(metrics.ok()) << metrics.error();
  for (const char* line : {"perfhive_health_findings{kind=\"object-missing\"} 1\n",
                           "perfhive_health_findings{kind=\"unnamed-index\"} 1\n",
                           "perfhive_health_findings{kind=\"object-came-and-went\"} 1\n",
                           "perfhive_health_findings{kind=\"instance-came-and-went\"} 1\n",
                           "perfhive_host_health_findings{host=\"web3\"} 2\n",
                           "perfhive_health_findings{kind=\"counter-missing\"} 0\n",
                           "perfhive_health_findings{kind=\"counter-invalid\"} 1\n",
                           "perfhive_health_findings{kind=\"provider-disabled\"} 0\n",
                           "perfhive_host_health_findings{host=\"web2\"} 2\n",
                           "perfhive_host_health_findings{host=\"web1\"} 1\n",
                           "perfhive_host_health_findings{host=\"web0\"} 0\n",
                           "perfhive_host_health_findings{host=\"app0\"} 0\n"}) {
    EXPECT_NE(metrics->body.find(line), std::string::npos) << line;
  }

  // As a check: nothing newer than a minute, so it passes; the text names the hosts.
  CommandResult recent = Health({"--since", "1m"});
  EXPECT_EQ(recent.exit_code, 0) << recent.err;
  EXPECT_NE(recent.out.find("object-missing  \\Memory  lacked by 1 host; 3 of 4 peers"),
            std::string::npos)
      << recent.out;
  // Only the application server: nothing to find.
  CommandResult app = Health({"app*", "--format", "json"});
  EXPECT_EQ(app.exit_code, 0) << app.err;
  EXPECT_TRUE(json::parse(app.out)["findings"].empty()) << app.out;
  // A selector that picks nothing is an error naming it.
  CommandResult none = Health({"--select", "role=db"});
  EXPECT_EQ(none.exit_code, 3) << none.out;
  EXPECT_NE(none.err.find("role=db"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace perfhive::testing
