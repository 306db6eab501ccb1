// The fleet's counter health report over inventories of the real captures of ../shared/fixtures,
// with faults injected here: an object lost after an agent update, a title database that lacks a
// name, an object that goes and comes back, a counter lost with a title database change, hosts of
// different roles. Each finding must name exactly the fault, its host and its time; hosts without
// a fault must have none.

#include "query/counter_health.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database_file.h"
#include "perfdata/well_known_indexes.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::query {
namespace {

constexpr char kZenoss[] = "realdata/zenoss-windowsmonitor";
constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kStart = 1'764'633'600 * kSecond;  // 2025-12-02T00:00:00Z

struct Machine {
  SnapshotInventory inventory;
  std::shared_ptr<const TitleDatabase> titles;
};

Machine LoadMachine(const std::string& name) {
  const std::filesystem::path folder(kZenoss);
  std::vector<uint8_t> raw = perfhive::testing::ReadSharedFixture(folder / (name + "-0.perf"));
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  EXPECT_TRUE(reader.ok()) << reader.error();
  std::vector<uint8_t> counters =
      perfhive::testing::ReadSharedFixture(folder / (name + ".counters"));
  Result<TitleDatabase> titles = LoadTitleDatabase(counters);
  EXPECT_TRUE(titles.ok()) << titles.error();
  return {reader.ok() ? InventoryOf(*reader) : SnapshotInventory{},
          std::make_shared<const TitleDatabase>(titles.ok() ? *titles : TitleDatabase{})};
}

SnapshotInventory Without(SnapshotInventory inventory, uint32_t object_index) {
  std::erase_if(inventory.objects,
                [&](const ObjectInventory& object) { return object.index == object_index; });
  return inventory;
}

// `titles` with some names changed: to another name, or (nullopt) to none, as a damaged or
// rebuilt title database has them.
std::shared_ptr<const TitleDatabase> Renamed(
    const TitleDatabase& titles, const std::map<uint32_t, std::optional<std::string>>& changes) {
  auto renamed = std::make_shared<TitleDatabase>();
  for (uint32_t index = 0; index <= titles.last_name_index(); ++index) {
    std::optional<std::string_view> name = titles.Name(index);
    if (!name) continue;
    auto change = changes.find(index);
    if (change == changes.end()) {
      renamed->AddName(index, std::string(*name));
    } else if (change->second) {
      renamed->AddName(index, *change->second);
    }
  }
  return renamed;
}

InventoryVersion Version(int64_t since_ns, SnapshotInventory inventory,
                         std::string agent_version = "1.0") {
  return {"Global", since_ns, std::move(inventory), std::move(agent_version), "5.2.3790", ""};
}

HealthHost Host(const std::string& name, const Machine& machine,
                std::vector<InventoryVersion> versions, HostLabels labels = {}) {
  HealthHost host;
  host.inventories = {name, std::move(versions)};
  host.os = "Windows Server 2003";
  host.os_version = "5.2.3790";
  host.labels = std::move(labels);
  host.english = machine.titles;
  return host;
}

// The last sample before a change, as a store whose samples are 10 s apart would answer.
std::optional<int64_t> TenSecondsBefore(const std::string&, const std::string&, int64_t before) {
  return before - 10 * kSecond;
}

std::vector<const HealthFinding*> OfKind(const HealthReport& report, HealthFindingKind kind) {
  std::vector<const HealthFinding*> found;
  for (const HealthFinding& finding : report.findings) {
    if (finding.kind == kind) found.push_back(&finding);
  }
  return found;
}

class CounterHealthTest : public ::testing::Test {
 protected:
  void SetUp() override { PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss); }
};

TEST_F(CounterHealthTest, EachInjectedFaultIsOneFindingOnItsHostAtItsTime) {
  const Machine machine = LoadMachine("wprepw01");
  const SnapshotInventory& full = machine.inventory;
  ASSERT_NE(full.Find(title_index::kMemory), nullptr);
  // An object that goes and comes back on web4: the last one without % Processor Time.
  uint32_t flapping = 0;
  for (const ObjectInventory& object : full.objects) {
    if (object.index != title_index::kMemory &&
        !std::binary_search(object.counters.begin(), object.counters.end(),
                            title_index::kPercentProcessorTime)) {
      flapping = object.index;
    }
  }
  ASSERT_NE(flapping, 0u);
  // web3's title database lacks the name of % Processor Time (index 6).
  std::shared_ptr<const TitleDatabase> damaged =
      Renamed(*machine.titles, {{title_index::kPercentProcessorTime, std::nullopt}});

  std::vector<HealthHost> hosts;
  hosts.push_back(Host("web1", machine, {Version(kStart, full)}));
  hosts.push_back(
      Host("web2", machine,
           {Version(kStart, full),
            Version(kStart + 100 * kSecond, Without(full, title_index::kMemory), "1.1")}));
  hosts.push_back(Host("web3", machine, {Version(kStart, full)}));
  hosts.back().english = damaged;
  hosts.push_back(
      Host("web4", machine,
           {Version(kStart, full), Version(kStart + 100 * kSecond, Without(full, flapping)),
            Version(kStart + 200 * kSecond, full)}));

  HealthRequest request;
  request.from_ns = kStart;
  request.at_ns = kStart + 300 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);
  EXPECT_EQ(report.hosts, (std::vector<std::string>{"web1", "web2", "web3", "web4"}));

  // web2: Memory, which its three peers have, since its agent's update.
  std::vector<const HealthFinding*> missing = OfKind(report, HealthFindingKind::kObjectMissing);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0]->object, "Memory");
  EXPECT_EQ(missing[0]->peers, "Windows");
  EXPECT_EQ(missing[0]->peers_with, 3u);
  EXPECT_EQ(missing[0]->peer_hosts, 4u);
  ASSERT_EQ(missing[0]->hosts.size(), 1u);
  const HostFinding& web2 = missing[0]->hosts[0];
  EXPECT_EQ(web2.host, "web2");
  EXPECT_EQ(web2.since_ns, kStart + 100 * kSecond);
  EXPECT_EQ(web2.last_with_ns, kStart + 90 * kSecond);
  EXPECT_NE(web2.cause.find("its agent changed from 1.0 to 1.1"), std::string::npos) << web2.cause;
  EXPECT_FALSE(web2.action.empty());

  // web3: index 6 unnamed, one finding naming every object of its inventory that uses it; not
  // "missing".
  std::set<std::string> expected_unnamed;
  for (const ObjectInventory& object : full.objects) {
    if (std::binary_search(object.counters.begin(), object.counters.end(),
                           title_index::kPercentProcessorTime)) {
      expected_unnamed.insert(std::string(*machine.titles->Name(object.index)));
    }
  }
  ASSERT_FALSE(expected_unnamed.empty());
  std::vector<const HealthFinding*> unnamed = OfKind(report, HealthFindingKind::kUnnamedIndex);
  ASSERT_EQ(unnamed.size(), 1u);
  EXPECT_EQ(unnamed[0]->object, "");
  EXPECT_EQ(unnamed[0]->counter, "6");
  ASSERT_EQ(unnamed[0]->hosts.size(), 1u);
  EXPECT_EQ(unnamed[0]->hosts[0].host, "web3");
  EXPECT_EQ(unnamed[0]->hosts[0].since_ns, kStart);
  EXPECT_NE(unnamed[0]->hosts[0].action.find("lodctr /R"), std::string::npos);
  for (const std::string& object : expected_unnamed) {
    EXPECT_NE(unnamed[0]->hosts[0].cause.find(object), std::string::npos)
        << object << " in " << unnamed[0]->hosts[0].cause;
  }

  // web4: gone at 100 s, back at 200 s.
  std::vector<const HealthFinding*> flaps = OfKind(report, HealthFindingKind::kObjectCameAndWent);
  ASSERT_EQ(flaps.size(), 1u);
  EXPECT_EQ(flaps[0]->object, std::string(*machine.titles->Name(flapping)));
  ASSERT_EQ(flaps[0]->hosts.size(), 1u);
  EXPECT_EQ(flaps[0]->hosts[0].host, "web4");
  EXPECT_EQ(
      flaps[0]->hosts[0].gaps,
      (std::vector<std::pair<int64_t, int64_t>>{{kStart + 100 * kSecond, kStart + 200 * kSecond}}));

  // web3's database is not the one its three peers of the same build share: one name less.
  std::vector<const HealthFinding*> differ = OfKind(report, HealthFindingKind::kTitlesDiffer);
  ASSERT_EQ(differ.size(), 1u);
  EXPECT_EQ(differ[0]->counter, "Windows 5.2.3790");
  ASSERT_EQ(differ[0]->hosts.size(), 1u);
  EXPECT_EQ(differ[0]->hosts[0].host, "web3");
  EXPECT_EQ(differ[0]->hosts[0].cause,
            "its title database is not the one 3 of the 4 hosts of Windows 5.2.3790 have: it "
            "lacks 1 of their names and has 0 they lack");

  // Nothing else: web1 has no finding at all.
  EXPECT_EQ(report.findings.size(), 4u);
  for (const HealthFinding& finding : report.findings) {
    for (const HostFinding& host : finding.hosts) EXPECT_NE(host.host, "web1");
  }
}

TEST_F(CounterHealthTest, PeersAreHostsOfTheSameRole) {
  const Machine web = LoadMachine("wprepw01");
  const Machine mail = LoadMachine("s-exch2007-64");
  std::vector<HealthHost> hosts;
  for (const char* name : {"web1", "web2"}) {
    hosts.push_back(Host(name, web, {Version(kStart, web.inventory)}, {{"role", "web"}}));
  }
  for (const char* name : {"mail1", "mail2"}) {
    hosts.push_back(Host(name, mail, {Version(kStart, mail.inventory)}, {{"role", "mail"}}));
    hosts.back().os_version = "5.2.3790 x64";  // another build, with a title database of its own
  }
  HealthRequest request;
  request.from_ns = kStart;
  request.at_ns = kStart + kSecond;
  EXPECT_TRUE(ReportCounterHealth(request, hosts, TenSecondsBefore).findings.empty());

  // The OS family alone: half of four hosts is not most of them, so still nothing is missing;
  // with a third web server, the mail servers lack what the web servers have.
  request.peers_by = {};
  EXPECT_TRUE(ReportCounterHealth(request, hosts, TenSecondsBefore).findings.empty());
  hosts.push_back(Host("web3", web, {Version(kStart, web.inventory)}, {{"role", "web"}}));
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);
  ASSERT_FALSE(report.findings.empty());
  for (const HealthFinding& finding : report.findings) {
    EXPECT_EQ(finding.peers, "Windows");
    for (const HostFinding& host : finding.hosts) {
      EXPECT_TRUE(host.host == "mail1" || host.host == "mail2") << host.host;
      // Never seen with it: no last sample, and the cause says so.
      EXPECT_FALSE(host.last_with_ns.has_value());
      EXPECT_NE(host.cause.find("never returned it"), std::string::npos) << host.cause;
    }
  }
}

TEST_F(CounterHealthTest, ALoneHostThatLosesACounterWithANewTitleDatabaseSaysSo) {
  const Machine machine = LoadMachine("win2003");
  SnapshotInventory fewer = machine.inventory;
  ObjectInventory* processor = nullptr;
  for (ObjectInventory& object : fewer.objects) {
    if (object.index == title_index::kProcessor) processor = &object;
  }
  ASSERT_NE(processor, nullptr);
  std::erase(processor->counters, title_index::kPercentProcessorTime);
  HealthHost host = Host(
      "db1", machine, {Version(kStart, machine.inventory), Version(kStart + 60 * kSecond, fewer)});
  host.title_versions_ns = {kStart + 60 * kSecond};
  HealthRequest request;
  request.from_ns = kStart + 30 * kSecond;
  request.at_ns = kStart + 120 * kSecond;
  const HealthReport report = ReportCounterHealth(request, std::span(&host, 1), TenSecondsBefore);
  ASSERT_EQ(report.findings.size(), 1u);
  const HealthFinding& lost = report.findings[0];
  EXPECT_EQ(lost.kind, HealthFindingKind::kCounterLost);
  EXPECT_EQ(lost.object, "Processor");
  EXPECT_EQ(lost.counter, "% Processor Time");
  ASSERT_EQ(lost.hosts.size(), 1u);
  EXPECT_EQ(lost.hosts[0].since_ns, kStart + 60 * kSecond);
  EXPECT_EQ(lost.hosts[0].last_with_ns, kStart + 50 * kSecond);
  EXPECT_NE(lost.hosts[0].cause.find("its title database changed at 2025-12-02T00:01:00Z"),
            std::string::npos)
      << lost.hosts[0].cause;
  EXPECT_EQ(lost.newest_ns, kStart + 60 * kSecond);

  // Lost before the range: no longer a finding of it.
  request.from_ns = kStart + 90 * kSecond;
  EXPECT_TRUE(ReportCounterHealth(request, std::span(&host, 1), TenSecondsBefore).findings.empty());
}

TEST_F(CounterHealthTest, ALostProviderWithoutAnyChangePointsAtTheProvider) {
  const Machine machine = LoadMachine("kinex01");
  HealthHost host =
      Host("app1", machine,
           {Version(kStart, machine.inventory),
            Version(kStart + 60 * kSecond, Without(machine.inventory, title_index::kMemory))});
  HealthRequest request;
  request.at_ns = kStart + 120 * kSecond;
  const HealthReport report = ReportCounterHealth(request, std::span(&host, 1), TenSecondsBefore);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].kind, HealthFindingKind::kObjectLost);
  EXPECT_EQ(report.findings[0].object, "Memory");
  const HostFinding& app1 = report.findings[0].hosts.at(0);
  EXPECT_EQ(app1.cause, "its provider stopped returning it");
  EXPECT_NE(app1.action.find("Disable Performance Counters"), std::string::npos) << app1.action;
}

// A provider whose names went missing made one unnamed-index finding per counter (90 for one host
// in an administrator's run): it is one finding per host naming the indexes as ranges, shared by
// the hosts that miss the same ones.
TEST_F(CounterHealthTest, UnnamedIndexesOfOneProviderAreOneFindingNotOnePerCounter) {
  const Machine machine = LoadMachine("wprepw01");
  const ObjectInventory* memory = machine.inventory.Find(title_index::kMemory);
  ASSERT_NE(memory, nullptr);
  ASSERT_GE(memory->counters.size(), 10u);
  // The databases of db2 and db3 lack Memory's name and its counters' names.
  std::map<uint32_t, std::optional<std::string>> dropped = {{title_index::kMemory, std::nullopt}};
  for (uint32_t counter : memory->counters) dropped.emplace(counter, std::nullopt);
  std::shared_ptr<const TitleDatabase> damaged = Renamed(*machine.titles, dropped);
  // What the report must list: every index the snapshots use that the database lacks (other
  // objects use some of Memory's counter names too, and then use them unnamed).
  std::set<uint32_t> expected;
  for (const ObjectInventory& object : machine.inventory.objects) {
    if (!damaged->Name(object.index)) expected.insert(object.index);
    for (uint32_t counter : object.counters) {
      if (!damaged->Name(counter)) expected.insert(counter);
    }
  }
  std::vector<HealthHost> hosts;
  for (const char* name : {"db1", "db2", "db3"}) {
    hosts.push_back(Host(name, machine, {Version(kStart, machine.inventory)}));
  }
  hosts[1].english = hosts[2].english = damaged;
  HealthRequest request;
  request.at_ns = kStart + 60 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);

  std::vector<const HealthFinding*> unnamed = OfKind(report, HealthFindingKind::kUnnamedIndex);
  ASSERT_EQ(unnamed.size(), 1u);
  ASSERT_EQ(unnamed[0]->hosts.size(), 2u);
  EXPECT_EQ(unnamed[0]->hosts[0].host, "db2");
  EXPECT_EQ(unnamed[0]->hosts[1].host, "db3");
  // The ranges read back are exactly the indexes expected.
  std::set<uint32_t> listed;
  std::string ranges = unnamed[0]->counter;
  for (size_t at = 0; at < ranges.size();) {
    size_t end = ranges.find(", ", at);
    if (end == std::string::npos) end = ranges.size();
    const std::string range = ranges.substr(at, end - at);
    const size_t dash = range.find('-');
    const uint32_t first = std::stoul(range.substr(0, dash));
    const uint32_t last = dash == std::string::npos ? first : std::stoul(range.substr(dash + 1));
    EXPECT_LE(first, last) << ranges;
    for (uint32_t index = first; index <= last; ++index) listed.insert(index);
    at = end + 2;
  }
  EXPECT_EQ(listed, expected) << ranges;
  const std::string& cause = unnamed[0]->hosts[0].cause;
  EXPECT_NE(cause.find(std::to_string(expected.size()) + " indexes its snapshots use"),
            std::string::npos)
      << cause;
  // Memory, unnamed, is named by its index; nothing is reported missing on db2 and db3.
  EXPECT_NE(cause.find(std::to_string(title_index::kMemory)), std::string::npos) << cause;
  EXPECT_TRUE(OfKind(report, HealthFindingKind::kObjectMissing).empty());
  EXPECT_TRUE(OfKind(report, HealthFindingKind::kCounterMissing).empty());
}

// A provider its agent reports disabled is a finding with its registry key and the objects it
// lists, named by the host's database; an object missing beside peers that it lists has it as
// its cause.
TEST_F(CounterHealthTest, ADisabledProviderIsAFindingAndTheCauseOfItsMissingObjects) {
  const Machine machine = LoadMachine("wprepw01");
  std::vector<HealthHost> hosts;
  hosts.push_back(Host("db1", machine, {Version(kStart, machine.inventory)}));
  hosts.push_back(Host("db2", machine, {Version(kStart, machine.inventory)}));
  hosts.push_back(
      Host("db3", machine, {Version(kStart, Without(machine.inventory, title_index::kMemory))}));
  const DisabledProvider perf_os{.service = "PerfOS",
                                 .disable_value = 1,
                                 .library = "perfos.dll",
                                 .object_indexes = {title_index::kMemory}};
  hosts[2].disabled_providers = {{perf_os, kStart + 30 * kSecond}};
  HealthRequest request;
  request.from_ns = kStart;
  request.at_ns = kStart + 60 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);

  std::vector<const HealthFinding*> disabled = OfKind(report, HealthFindingKind::kProviderDisabled);
  ASSERT_EQ(disabled.size(), 1u);
  EXPECT_EQ(disabled[0]->counter, "PerfOS");
  ASSERT_EQ(disabled[0]->hosts.size(), 1u);
  const HostFinding& db3 = disabled[0]->hosts[0];
  EXPECT_EQ(db3.host, "db3");
  EXPECT_EQ(db3.since_ns, kStart + 30 * kSecond);
  EXPECT_NE(db3.cause.find("Disable Performance Counters is 1 under "
                           "HKLM\\SYSTEM\\CurrentControlSet\\Services\\PerfOS\\Performance"),
            std::string::npos)
      << db3.cause;
  EXPECT_NE(db3.cause.find("perfos.dll"), std::string::npos) << db3.cause;
  EXPECT_NE(db3.cause.find("Memory"), std::string::npos) << db3.cause;
  EXPECT_NE(db3.action.find("lodctr /E:PerfOS"), std::string::npos) << db3.action;

  std::vector<const HealthFinding*> missing = OfKind(report, HealthFindingKind::kObjectMissing);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0]->object, "Memory");
  ASSERT_EQ(missing[0]->hosts.size(), 1u);
  EXPECT_NE(missing[0]->hosts[0].cause.find("its provider is disabled"), std::string::npos)
      << missing[0]->hosts[0].cause;
  EXPECT_NE(missing[0]->hosts[0].action.find("lodctr /E:PerfOS"), std::string::npos);
}

// An object a host's agent asks for by index that its snapshots never return, on a host alone
// (no peer to compare with): object-not-returned, naming the query; Global queries ask for
// nothing by index, so the same gap there is no finding.
TEST_F(CounterHealthTest, AnObjectAskedForByIndexAndNeverReturnedIsSaidSo) {
  const Machine machine = LoadMachine("wprepw01");
  ASSERT_NE(machine.inventory.Find(title_index::kProcessor), nullptr);
  const std::string asked = "2 " + std::to_string(title_index::kMemory) + " 238";
  HealthHost host = Host("app1", machine, {});
  host.inventories.versions.push_back(
      {asked, kStart, Without(machine.inventory, title_index::kMemory), "1.0", "5.2.3790", ""});
  HealthRequest request;
  request.at_ns = kStart + 60 * kSecond;
  HealthReport report = ReportCounterHealth(request, std::span(&host, 1), TenSecondsBefore);
  std::vector<const HealthFinding*> not_returned =
      OfKind(report, HealthFindingKind::kObjectNotReturned);
  ASSERT_EQ(not_returned.size(), 1u);
  EXPECT_EQ(not_returned[0]->object, "Memory");
  ASSERT_EQ(not_returned[0]->hosts.size(), 1u);
  EXPECT_EQ(not_returned[0]->hosts[0].since_ns, kStart);
  EXPECT_NE(not_returned[0]->hosts[0].cause.find("query \"" + asked + "\""), std::string::npos)
      << not_returned[0]->hosts[0].cause;

  host.inventories.versions[0].query = "Global";
  report = ReportCounterHealth(request, std::span(&host, 1), TenSecondsBefore);
  EXPECT_TRUE(OfKind(report, HealthFindingKind::kObjectNotReturned).empty());

  // Asked for by index, returned, then lost: the lost finding says it was asked for.
  host.inventories.versions = {
      {asked, kStart, machine.inventory, "1.0", "5.2.3790", ""},
      {asked, kStart + 30 * kSecond, Without(machine.inventory, title_index::kMemory), "1.0",
       "5.2.3790", ""}};
  request.from_ns = kStart;
  report = ReportCounterHealth(request, std::span(&host, 1), TenSecondsBefore);
  EXPECT_TRUE(OfKind(report, HealthFindingKind::kObjectNotReturned).empty());
  std::vector<const HealthFinding*> lost = OfKind(report, HealthFindingKind::kObjectLost);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0]->object, "Memory");
  EXPECT_EQ(lost[0]->hosts.at(0).since_ns, kStart + 30 * kSecond);
  EXPECT_EQ(lost[0]->hosts.at(0).cause.rfind("its agent asks for it by index (query \"" + asked, 0),
            0u)
      << lost[0]->hosts.at(0).cause;

  // Regression: a disabled provider's cause replaced the words saying the agent asks for it.
  host.disabled_providers = {{DisabledProvider{.service = "PerfOS",
                                               .disable_value = 1,
                                               .library = "perfos.dll",
                                               .object_indexes = {title_index::kMemory}},
                              kStart + 30 * kSecond}};
  report = ReportCounterHealth(request, std::span(&host, 1), TenSecondsBefore);
  lost = OfKind(report, HealthFindingKind::kObjectLost);
  ASSERT_EQ(lost.size(), 1u);
  const std::string& cause = lost[0]->hosts.at(0).cause;
  EXPECT_EQ(cause.rfind("its agent asks for it by index (query \"" + asked, 0), 0u) << cause;
  EXPECT_NE(cause.find("do not return it: its provider is disabled: Disable Performance Counters "
                       "is 1 under"),
            std::string::npos)
      << cause;
}

// A title database change that renames indexes a host's snapshots use, and gives two counters of
// one object the same name, is said with the old and new names; a host whose database did not
// change, or never changed, has neither finding.
TEST_F(CounterHealthTest, NamesAChangedTitleDatabaseRenamedOrDuplicatedAreSaid) {
  const Machine machine = LoadMachine("wprepw01");
  const ObjectInventory* memory = machine.inventory.Find(title_index::kMemory);
  ASSERT_NE(memory, nullptr);
  ASSERT_GE(memory->counters.size(), 2u);
  const uint32_t first = memory->counters[0], second = memory->counters[1];
  const std::string first_name(*machine.titles->Name(first));
  std::vector<HealthHost> hosts;
  for (const char* name : {"web1", "web2", "web3"}) {
    hosts.push_back(Host(name, machine, {Version(kStart, machine.inventory)}));
  }
  hosts[0].english = Renamed(
      *machine.titles, {{title_index::kPercentProcessorTime, "% CPU Time"}, {second, first_name}});
  hosts[0].english_before = machine.titles;
  hosts[0].title_versions_ns = {kStart + 30 * kSecond};
  hosts[1].english_before = machine.titles;  // a change that changed no name
  hosts[1].title_versions_ns = {kStart + 30 * kSecond};
  HealthRequest request;
  request.at_ns = kStart + 60 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);

  std::vector<const HealthFinding*> renamed = OfKind(report, HealthFindingKind::kNamesChanged);
  ASSERT_EQ(renamed.size(), 1u);
  ASSERT_EQ(renamed[0]->hosts.size(), 1u);
  EXPECT_EQ(renamed[0]->hosts[0].host, "web1");
  EXPECT_EQ(renamed[0]->hosts[0].since_ns, kStart + 30 * kSecond);
  const std::set<uint32_t> expected = {title_index::kPercentProcessorTime, second};
  EXPECT_EQ(renamed[0]->counter,
            std::to_string(*expected.begin()) + ", " + std::to_string(*expected.rbegin()));
  EXPECT_NE(renamed[0]->hosts[0].cause.find("6 \"% Processor Time\" is \"% CPU Time\""),
            std::string::npos)
      << renamed[0]->hosts[0].cause;

  std::vector<const HealthFinding*> duplicated = OfKind(report, HealthFindingKind::kNameDuplicated);
  ASSERT_EQ(duplicated.size(), 1u);
  EXPECT_EQ(duplicated[0]->object, "Memory");
  EXPECT_EQ(duplicated[0]->counter, first_name);
  ASSERT_EQ(duplicated[0]->hosts.size(), 1u);
  EXPECT_EQ(duplicated[0]->hosts[0].host, "web1");
  EXPECT_NE(
      duplicated[0]->hosts[0].cause.find("indexes " + std::to_string(std::min(first, second))),
      std::string::npos)
      << duplicated[0]->hosts[0].cause;
}

// What an agent lost is a finding when a count grew in the range, with every count and what to
// do; counts that last grew before the range are not.
TEST_F(CounterHealthTest, LossesThatGrewInTheRangeAreAFinding) {
  const Machine machine = LoadMachine("kinex01");
  std::vector<HealthHost> hosts;
  hosts.push_back(Host("app1", machine, {Version(kStart, machine.inventory)}));
  hosts.back().losses = CollectionLosses{.agent_started_ns = kStart - 10 * kSecond,
                                         .skipped_ticks = 4,
                                         .dropped = 120,
                                         .grew_ns = kStart + 50 * kSecond};
  hosts.push_back(Host("app2", machine, {Version(kStart, machine.inventory)}));
  hosts.back().losses = CollectionLosses{.dropped = 7, .grew_ns = kStart - 50 * kSecond};
  HealthRequest request;
  request.from_ns = kStart;
  request.at_ns = kStart + 100 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);
  std::vector<const HealthFinding*> losses = OfKind(report, HealthFindingKind::kCollectionLosses);
  ASSERT_EQ(losses.size(), 1u);
  ASSERT_EQ(losses[0]->hosts.size(), 1u);
  const HostFinding& app1 = losses[0]->hosts[0];
  EXPECT_EQ(app1.host, "app1");
  EXPECT_EQ(app1.since_ns, kStart + 50 * kSecond);
  EXPECT_NE(app1.cause.find("4 ticks skipped"), std::string::npos) << app1.cause;
  EXPECT_NE(app1.cause.find("120 snapshots dropped by the spool's limit"), std::string::npos)
      << app1.cause;
  EXPECT_NE(app1.action.find("spool_max_bytes"), std::string::npos) << app1.action;
  EXPECT_NE(app1.action.find("lengthen the interval"), std::string::npos) << app1.action;
}

TEST_F(CounterHealthTest, ErrorsInTheRangeAreFindingsAndOlderOnesAreNot) {
  const Machine machine = LoadMachine("kinex01");
  std::vector<HealthHost> hosts;
  hosts.push_back(Host("app1", machine, {Version(kStart, machine.inventory)}));
  hosts.back().last_error = "RegQueryValueExW(HKEY_PERFORMANCE_DATA, Global): error 1722";
  hosts.back().last_error_ns = kStart + 50 * kSecond;
  hosts.push_back(Host("app2", machine, {Version(kStart, machine.inventory)}));
  hosts.back().last_error = "an old one";
  hosts.back().last_error_ns = kStart - 50 * kSecond;
  HealthRequest request;
  request.from_ns = kStart;
  request.at_ns = kStart + 100 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].kind, HealthFindingKind::kCollectionError);
  EXPECT_EQ(report.findings[0].counter, hosts[0].last_error);
  EXPECT_EQ(report.findings[0].hosts.at(0).host, "app1");
  EXPECT_EQ(report.findings[0].hosts.at(0).since_ns, kStart + 50 * kSecond);
}

// Counters without a valid value: one finding per object naming its counters, hosts whose object
// has the same counters invalid sharing it, named with each host's titles, whichever of its
// queries showed it; a run that begins after the report's time is not one yet.
TEST_F(CounterHealthTest, CountersWithoutAValidValueAreAFindingPerObject) {
  const Machine machine = LoadMachine("kinex01");
  const InvalidCounter stuck{title_index::kSystem, 10, PdhStatus::kNegativeDenominator};
  std::vector<HealthHost> hosts;
  for (const char* name : {"app1", "app2", "app3", "app4"}) {
    hosts.push_back(Host(name, machine, {Version(kStart, machine.inventory)}));
  }
  hosts[0].invalid_counters = {{"Global", stuck, kStart + 30 * kSecond},
                               {"2 4", stuck, kStart + 40 * kSecond}};
  hosts[1].invalid_counters = {
      {"Global", {title_index::kSystem, 10, PdhStatus::kNegativeValue}, kStart + 60 * kSecond}};
  hosts[2].invalid_counters = {{"Global", stuck, kStart + 200 * kSecond}};
  // app4: three counters of System, for two reasons, from 50 s and 45 s: one finding.
  hosts[3].invalid_counters = {
      {"Global", {title_index::kSystem, 12, PdhStatus::kNegativeValue}, kStart + 50 * kSecond},
      {"Global", {title_index::kSystem, 14, PdhStatus::kNegativeValue}, kStart + 50 * kSecond},
      {"2", stuck, kStart + 45 * kSecond}};
  HealthRequest request;
  request.from_ns = kStart;
  request.at_ns = kStart + 100 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);
  std::vector<const HealthFinding*> invalid = OfKind(report, HealthFindingKind::kCounterInvalid);
  ASSERT_EQ(invalid.size(), 2u);
  EXPECT_EQ(invalid[0]->object, "System");
  EXPECT_EQ(invalid[0]->counter, "File Read Operations/sec");
  ASSERT_EQ(invalid[0]->hosts.size(), 2u);
  const HostFinding& app1 = invalid[0]->hosts[0];
  EXPECT_EQ(app1.host, "app1");
  EXPECT_EQ(app1.since_ns, kStart + 30 * kSecond);
  EXPECT_EQ(app1.last_with_ns, kStart + 20 * kSecond);
  EXPECT_NE(app1.cause.find("PDH_CALC_NEGATIVE_DENOMINATOR"), std::string::npos) << app1.cause;
  EXPECT_NE(app1.cause.find("does not advance"), std::string::npos) << app1.cause;
  const HostFinding& app2 = invalid[0]->hosts[1];
  EXPECT_EQ(app2.host, "app2");
  EXPECT_NE(app2.cause.find("goes backwards"), std::string::npos) << app2.cause;
  EXPECT_EQ(invalid[0]->newest_ns, kStart + 60 * kSecond);

  EXPECT_EQ(invalid[1]->object, "System");
  EXPECT_EQ(invalid[1]->counter,
            "3 counters: File Control Operations/sec, File Read Operations/sec, File Write "
            "Operations/sec");
  ASSERT_EQ(invalid[1]->hosts.size(), 1u);
  const HostFinding& app4 = invalid[1]->hosts[0];
  EXPECT_EQ(app4.host, "app4");
  EXPECT_EQ(app4.since_ns, kStart + 45 * kSecond);
  EXPECT_EQ(app4.last_with_ns, kStart + 35 * kSecond);
  // Each reason with its counters, and both actions.
  EXPECT_NE(app4.cause.find("File Control Operations/sec, File Write Operations/sec "
                            "(PDH_CALC_NEGATIVE_VALUE"),
            std::string::npos)
      << app4.cause;
  EXPECT_NE(app4.cause.find("File Read Operations/sec (PDH_CALC_NEGATIVE_DENOMINATOR"),
            std::string::npos)
      << app4.cause;
  EXPECT_NE(app4.action.find("resets its count"), std::string::npos) << app4.action;
  EXPECT_NE(app4.action.find("timestamps"), std::string::npos) << app4.action;
}

// Instances that went and came back: one finding per object and instance, hosts with the same
// instance sharing it, each host with its gaps in the range; gaps before the range or after the
// report's time are not counted.
TEST_F(CounterHealthTest, InstancesThatWentAndCameBackAreAFindingPerInstance) {
  const Machine machine = LoadMachine("kinex01");
  std::vector<HealthHost> hosts;
  for (const char* name : {"app1", "app2", "app3"}) {
    hosts.push_back(Host(name, machine, {Version(kStart, machine.inventory)}));
  }
  constexpr uint32_t kLogicalDisk = 236;
  auto gap = [&](const char* instance, int64_t gone_s, int64_t back_s) {
    return InstanceGap{kLogicalDisk, instance, kStart + gone_s * kSecond,
                       kStart + back_s * kSecond};
  };
  hosts[0].instance_gaps = {gap("C:", 20, 40), gap("C:", 300, 310), gap("D:", 50, 60)};
  hosts[1].instance_gaps = {gap("C:", -100, -50), gap("C:", 70, 80)};
  hosts[2].instance_gaps = {gap("C:", -100, -50), gap("E:", 500, 700)};  // before, and after `at`
  HealthRequest request;
  request.from_ns = kStart;
  request.at_ns = kStart + 400 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);
  std::vector<const HealthFinding*> gaps = OfKind(report, HealthFindingKind::kInstanceCameAndWent);
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0]->object, "LogicalDisk");
  EXPECT_EQ(gaps[0]->counter, "C:");
  ASSERT_EQ(gaps[0]->hosts.size(), 2u);
  const HostFinding& app1 = gaps[0]->hosts[0];
  EXPECT_EQ(app1.host, "app1");
  EXPECT_EQ(app1.since_ns, kStart + 20 * kSecond);
  EXPECT_EQ(app1.gaps, (std::vector<std::pair<int64_t, int64_t>>{
                           {kStart + 20 * kSecond, kStart + 40 * kSecond},
                           {kStart + 300 * kSecond, kStart + 310 * kSecond}}));
  EXPECT_NE(app1.cause.find("went 2 times"), std::string::npos) << app1.cause;
  EXPECT_NE(app1.cause.find("away at most 20 s"), std::string::npos) << app1.cause;
  EXPECT_EQ(gaps[0]->hosts[1].host, "app2");
  EXPECT_EQ(gaps[0]->hosts[1].gaps.size(), 1u);
  EXPECT_EQ(gaps[1]->counter, "D:");
  ASSERT_EQ(gaps[1]->hosts.size(), 1u);
  EXPECT_EQ(gaps[1]->hosts[0].host, "app1");
  EXPECT_NE(gaps[1]->hosts[0].cause.find("went 1 time and came back"), std::string::npos);
  EXPECT_FALSE(gaps[1]->hosts[0].action.empty());
}

// Slow objects: the agent's last sweep, when it falls in the range, gives a finding per object
// that took a second alone, or a tenth of the interval when that is shorter; failed reads are not
// times; every host's slowest come apart, named, whatever their time.
TEST_F(CounterHealthTest, ObjectsSlowAloneAreFindingsAndEachHostsSlowestAreListed) {
  const Machine machine = LoadMachine("kinex01");
  std::vector<HealthHost> hosts;
  for (const char* name : {"app1", "app2", "app3"}) {
    hosts.push_back(Host(name, machine, {Version(kStart, machine.inventory)}));
  }
  constexpr int64_t kMs = 1'000'000;
  // app1 samples every 10 s: Process at 1.5 s is slow, Memory at 900 ms is not; System failed.
  hosts[0].object_timings =
      ObjectTimings{.measured_ns = kStart + 40 * kSecond,
                    .interval_ns = 10 * kSecond,
                    .objects = {{title_index::kSystem, 5000 * kMs, 0, "error 5"},
                                {title_index::kMemory, 900 * kMs, 100, ""},
                                {title_index::kProcess, 1500 * kMs, 9000, ""}}};
  // app2 samples every second: Memory at 150 ms is a tenth and more.
  hosts[1].object_timings = ObjectTimings{.measured_ns = kStart + 50 * kSecond,
                                          .interval_ns = kSecond,
                                          .objects = {{title_index::kMemory, 150 * kMs, 100, ""}}};
  // app3's sweep is older than the range: listed, not a finding.
  hosts[2].object_timings = ObjectTimings{.measured_ns = kStart - 50 * kSecond,
                                          .interval_ns = 10 * kSecond,
                                          .objects = {{title_index::kProcess, 4000 * kMs, 1, ""}}};
  HealthRequest request;
  request.from_ns = kStart;
  request.at_ns = kStart + 100 * kSecond;
  const HealthReport report = ReportCounterHealth(request, hosts, TenSecondsBefore);
  std::vector<const HealthFinding*> slow = OfKind(report, HealthFindingKind::kSlowObject);
  ASSERT_EQ(slow.size(), 2u);
  std::map<std::string, std::vector<std::string>> hosts_by_object;
  for (const HealthFinding* finding : slow) {
    for (const HostFinding& host : finding->hosts) {
      hosts_by_object[finding->object].push_back(host.host);
    }
  }
  EXPECT_EQ(hosts_by_object, (std::map<std::string, std::vector<std::string>>{
                                 {"Memory", {"app2"}}, {"Process", {"app1"}}}));
  const HealthFinding& process = *(slow[0]->object == "Process" ? slow[0] : slow[1]);
  EXPECT_EQ(process.hosts[0].since_ns, kStart + 40 * kSecond);
  EXPECT_NE(process.hosts[0].cause.find("1.50 s"), std::string::npos) << process.hosts[0].cause;
  EXPECT_NE(process.hosts[0].cause.find("every 10.00 s"), std::string::npos)
      << process.hosts[0].cause;

  ASSERT_EQ(report.slowest_objects.size(), 3u);
  EXPECT_EQ(report.slowest_objects[0].host, "app1");
  ASSERT_EQ(report.slowest_objects[0].objects.size(), 2u);
  EXPECT_EQ(report.slowest_objects[0].objects[0].name, "Process");
  EXPECT_EQ(report.slowest_objects[0].objects[0].nanos, 1500 * kMs);
  EXPECT_EQ(report.slowest_objects[0].objects[1].name, "Memory");
  EXPECT_EQ(report.slowest_objects[2].host, "app3");
}

TEST(ParsePeersByTest, TakesLabelKeysWithCommasAndRefusesOthers) {
  EXPECT_EQ(*ParsePeersBy("role,env"), (std::vector<std::string>{"role", "env"}));
  EXPECT_EQ(*ParsePeersBy("role,role"), (std::vector<std::string>{"role"}));
  EXPECT_TRUE(ParsePeersBy("")->empty());
  Result<std::vector<std::string>> bad = ParsePeersBy("role,site name");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.error().find("\"site name\""), std::string::npos) << bad.error();
}

}  // namespace
}  // namespace perfhive::query
