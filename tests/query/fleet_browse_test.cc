// Browsing several hosts at once over builder-made hosts in memory: which hosts are browsed (a
// pattern, a selector by label, a time), and for each object, counter and instance how many of
// them have it and which lack it, against counts made here from the hosts' own descriptions.

#include "query/fleet_browse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "tests/query/memory_sample_reader.h"
#include "tests/query/query_test_hosts.h"

namespace perfhive::query {
namespace {

using namespace testing;  // NOLINT: the test hosts
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A host as these tests describe it, and build it from.
struct BrowseTestHost {
  std::string name = {};
  HostLabels labels = {};
  size_t processors = 1;                    // Processor instances "0", "1", ...
  std::vector<std::string> processes = {};  // Process instances as PDH names them ("app#1")
  bool processes_costly = false;            // Process only in the host's Costly sample
  uint32_t print_queue = 0;                 // the Print Queue object's index here; 0: none
  std::string print_queue_name = "Print Queue";
  bool print_queue_printed = false;  // with a Total Jobs Printed counter beside Jobs
  int first_second = 0;              // its Global samples at this second and the next
};

// Each host's Global samples (and Costly one); its titles name Print Queue (an object without
// instances) at its own index.
void AddBrowseTestHosts(MemorySampleReader& reader, const std::vector<BrowseTestHost>& hosts) {
  for (const BrowseTestHost& host : hosts) {
    auto titles = std::make_shared<TitleDatabase>(*EnglishTitles());
    if (host.print_queue != 0) {
      titles->AddName(host.print_queue, host.print_queue_name);
      titles->AddName(host.print_queue + 2, "Jobs");
      titles->AddName(host.print_queue + 4, "Total Jobs Printed");
    }
    std::vector<TestProcess> processes;
    for (const std::string& name : host.processes) {
      processes.push_back({name.substr(0, name.find('#')), 1000 + processes.size(), 1, 0});
    }
    for (int second = host.first_second; second < host.first_second + 2; ++second) {
      SnapshotBuilder global = HostAt(second);
      AddProcessors(global, std::vector<uint64_t>(host.processors, 0),
                    std::vector<uint64_t>(host.processors, 0));
      if (!host.processes.empty() && !host.processes_costly) {
        AddProcesses(global, second, processes);
      }
      if (host.print_queue != 0) {
        ObjectBuilder& queue = global.AddObject(host.print_queue).set_no_instances();
        queue.AddCounter({.name_index = host.print_queue + 2, .type = winperf::kCounterRawcount});
        if (host.print_queue_printed) {
          queue.AddCounter({.name_index = host.print_queue + 4, .type = winperf::kCounterRawcount});
        }
      }
      HostSample sample = SampleOf(global, second, titles);
      sample.query = "Global";
      reader.Add(host.name, std::move(sample));
    }
    if (host.processes_costly) {
      SnapshotBuilder costly = HostAt(host.first_second);
      AddProcesses(costly, host.first_second, processes);
      HostSample sample = SampleOf(costly, host.first_second, titles);
      sample.query = "Costly";
      reader.Add(host.name, std::move(sample));
    }
  }
}

// Three web servers and a database server: web02's processes are in its Costly samples, and its
// Print Queue has another index and spelling than web01's.
const std::vector<BrowseTestHost> kBrowsedFleet = {
    {.name = "web01",
     .labels = {{"role", "web"}, {"site", "ams"}},
     .processors = 2,
     .processes = {"app", "svc"},
     .print_queue = 9000},
    {.name = "web02",
     .labels = {{"role", "web"}, {"site", "fra"}},
     .processors = 4,
     .processes = {"app", "app#1"},
     .processes_costly = true,
     .print_queue = 1850,
     .print_queue_name = "PRINT QUEUE",
     .print_queue_printed = true},
    {.name = "web03", .labels = {{"role", "web"}, {"site", "ams"}}, .processors = 1},
    {.name = "sql01",
     .labels = {{"role", "sql"}, {"site", "ams"}},
     .processors = 2,
     .processes = {"sqlservr"}},
};

// A browser over `hosts`, with their labels.
struct BrowsedFleet {
  explicit BrowsedFleet(const std::vector<BrowseTestHost>& hosts) : browser(reader) {
    AddBrowseTestHosts(reader, hosts);
    for (const BrowseTestHost& host : hosts) labels[host.name] = host.labels;
    browser.set_host_labels([this](const std::string& host) { return labels.at(host); });
  }
  MemorySampleReader reader;
  std::map<std::string, HostLabels> labels;
  FleetBrowser browser;
};

FleetBrowseRequest BrowseRequest(std::string hosts, std::string_view selector = "") {
  FleetBrowseRequest request;
  request.hosts = std::move(hosts);
  request.selector = *HostSelector::Parse(selector);
  return request;
}

// What the answer should say of a name the hosts `having` have, among `browsed`: computed from
// the descriptions, the first ten lacking hosts by name.
Presence ExpectedPresence(const std::set<std::string>& having,
                          const std::vector<std::string>& browsed) {
  std::vector<std::string> sorted = browsed;
  std::sort(sorted.begin(), sorted.end());
  Presence presence;
  for (const std::string& host : sorted) {
    if (having.contains(host)) {
      ++presence.hosts;
    } else if (presence.lacking.size() < 10) {
      presence.lacking.push_back(host);
    }
  }
  return presence;
}

// name → the hosts of `fleet` among `browsed` that have it, by `names_of` each host.
template <typename NamesOf>
std::map<std::string, std::set<std::string>> HoldersOf(const std::vector<BrowseTestHost>& fleet,
                                                       const std::vector<std::string>& browsed,
                                                       const NamesOf& names_of) {
  std::map<std::string, std::set<std::string>> holders;
  for (const BrowseTestHost& host : fleet) {
    if (std::find(browsed.begin(), browsed.end(), host.name) == browsed.end()) continue;
    for (const std::string& name : names_of(host)) holders[name].insert(host.name);
  }
  return holders;
}

template <typename Info>
void ExpectPresences(const std::vector<Present<Info>>& answered,
                     const std::map<std::string, std::set<std::string>>& holders,
                     const std::vector<std::string>& browsed,
                     const std::function<std::string(const Info&)>& name_of) {
  std::map<std::string, Presence> got;
  for (const Present<Info>& item : answered) got[name_of(item.info)] = item.presence;
  ASSERT_EQ(got.size(), holders.size());
  for (const auto& [name, having] : holders) {
    ASSERT_TRUE(got.contains(name)) << name;
    Presence expected = ExpectedPresence(having, browsed);
    EXPECT_EQ(got[name].hosts, expected.hosts) << name;
    EXPECT_EQ(got[name].lacking, expected.lacking) << name;
  }
}

TEST(FleetBrowseTest, ObjectsOfTheSelectedHostsCountTheHostsThatHaveEach) {
  BrowsedFleet fleet(kBrowsedFleet);
  Result<FleetObjects> answer = fleet.browser.Objects(BrowseRequest("*", "role=web"));
  ASSERT_TRUE(answer.ok()) << answer.error();
  const std::vector<std::string> web = {"web01", "web02", "web03"};
  EXPECT_EQ(answer->hosts.names, web);
  EXPECT_EQ(answer->hosts.without_sample, 0u);
  EXPECT_EQ(answer->hosts.oldest_ns, kStartNs + kSecondNs);
  EXPECT_EQ(answer->hosts.newest_ns, kStartNs + kSecondNs);
  // sql01 is not selected: its samples are never read.
  EXPECT_EQ(fleet.reader.loaded(), (std::set<std::string>(web.begin(), web.end())));
  ExpectPresences<ObjectInfo>(answer->objects,
                              HoldersOf(kBrowsedFleet, web,
                                        [](const BrowseTestHost& host) {
                                          std::vector<std::string> names = {"Processor"};
                                          if (!host.processes.empty()) names.push_back("Process");
                                          if (host.print_queue) names.push_back("Print Queue");
                                          return names;
                                        }),
                              web, [](const ObjectInfo& object) { return object.name; });
  // In the order they first appear; Print Queue as web01 (the first by name) spells it.
  std::vector<std::string> order;
  std::map<std::string, ObjectInfo> objects;
  for (const Present<ObjectInfo>& object : answer->objects) {
    order.push_back(object.info.name);
    objects[object.info.name] = object.info;
  }
  EXPECT_THAT(order, ElementsAre("Processor", "Process", "Print Queue"));
  EXPECT_EQ(objects["Print Queue"].index, 9000u);
  // Instances on all of them together, counters the most any has.
  EXPECT_EQ(objects["Processor"].num_instances, 2 + 4 + 1);
  EXPECT_EQ(objects["Process"].num_instances, 2 + 2);
  EXPECT_EQ(objects["Print Queue"].num_instances, -1);
  EXPECT_EQ(objects["Print Queue"].num_counters, 2u);
}

TEST(FleetBrowseTest, InstancesAreCountedByNameAcrossTheHostsAPatternPicks) {
  BrowsedFleet fleet(kBrowsedFleet);
  const std::vector<std::string> web = {"web01", "web02", "web03"};
  Result<FleetInstances> processors = fleet.browser.Instances(BrowseRequest("WEB*"), "processor");
  ASSERT_TRUE(processors.ok()) << processors.error();
  EXPECT_EQ(processors->hosts.names, web);
  EXPECT_EQ(processors->object, "Processor");
  EXPECT_EQ(processors->object_presence.hosts, 3u);
  ExpectPresences<std::string>(processors->items,
                               HoldersOf(kBrowsedFleet, web,
                                         [](const BrowseTestHost& host) {
                                           std::vector<std::string> names;
                                           for (size_t n = 0; n < host.processors; ++n) {
                                             names.push_back(std::to_string(n));
                                           }
                                           return names;
                                         }),
                               web, [](const std::string& name) { return name; });

  // web02's processes are in its Costly sample only, and web03 has none.
  Result<FleetInstances> processes = fleet.browser.Instances(BrowseRequest("web*"), "Process");
  ASSERT_TRUE(processes.ok()) << processes.error();
  EXPECT_EQ(processes->object_presence.hosts, 2u);
  EXPECT_THAT(processes->object_presence.lacking, ElementsAre("web03"));
  ExpectPresences<std::string>(
      processes->items,
      HoldersOf(kBrowsedFleet, web, [](const BrowseTestHost& host) { return host.processes; }), web,
      [](const std::string& name) { return name; });
}

TEST(FleetBrowseTest, CountersOfAnObjectWhoseIndexDiffersFromHostToHost) {
  BrowsedFleet fleet(kBrowsedFleet);
  const std::vector<std::string> web = {"web01", "web02", "web03"};
  Result<FleetCounters> answer =
      fleet.browser.Counters(BrowseRequest("*", "role=web"), "print queue");
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_EQ(answer->object, "Print Queue");
  EXPECT_EQ(answer->object_presence.hosts, 2u);
  EXPECT_THAT(answer->object_presence.lacking, ElementsAre("web03"));
  ExpectPresences<CounterInfo>(answer->items,
                               HoldersOf(kBrowsedFleet, web,
                                         [](const BrowseTestHost& host) {
                                           std::vector<std::string> names;
                                           if (host.print_queue) names.push_back("Jobs");
                                           if (host.print_queue_printed) {
                                             names.push_back("Total Jobs Printed");
                                           }
                                           return names;
                                         }),
                               web, [](const CounterInfo& counter) { return counter.name; });
  for (const Present<CounterInfo>& counter : answer->items) {
    EXPECT_EQ(counter.info.type_name, "PERF_COUNTER_RAWCOUNT") << counter.info.name;
  }
}

TEST(FleetBrowseTest, AHostWithoutASampleByTheTimeAskedIsLeftOutAndCounted) {
  std::vector<BrowseTestHost> hosts = kBrowsedFleet;
  hosts.push_back({.name = "web04", .labels = {{"role", "web"}}, .first_second = 10});
  BrowsedFleet fleet(hosts);
  FleetBrowseRequest request = BrowseRequest("*", "role=web");
  request.at_ns = kStartNs + 5 * kSecondNs;
  Result<FleetObjects> answer = fleet.browser.Objects(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_THAT(answer->hosts.names, ElementsAre("web01", "web02", "web03"));
  EXPECT_EQ(answer->hosts.without_sample, 1u);
  // The same hosts' older sample when asked for a time before their newest.
  request.at_ns = kStartNs;
  answer = fleet.browser.Objects(request);
  ASSERT_TRUE(answer.ok()) << answer.error();
  EXPECT_EQ(answer->hosts.newest_ns, kStartNs);

  request.at_ns = kStartNs - kSecondNs;
  answer = fleet.browser.Objects(request);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(answer.error(), HasSubstr("none of the 4 hosts selected has a sample"));
}

TEST(FleetBrowseTest, AtMostTenLackingHostsAreNamedTheFirstByName) {
  std::vector<BrowseTestHost> hosts;
  for (int n = 13; n >= 1; --n) {
    hosts.push_back({.name = (n < 10 ? "h0" : "h") + std::to_string(n)});
  }
  hosts.front().processes = {"only"};  // h13
  BrowsedFleet fleet(hosts);
  Result<FleetObjects> answer = fleet.browser.Objects(BrowseRequest("h*"));
  ASSERT_TRUE(answer.ok()) << answer.error();
  ASSERT_EQ(answer->hosts.names.size(), 13u);
  std::vector<std::string> browsed = answer->hosts.names;
  ExpectPresences<ObjectInfo>(answer->objects,
                              HoldersOf(hosts, browsed,
                                        [](const BrowseTestHost& host) {
                                          std::vector<std::string> names = {"Processor"};
                                          if (!host.processes.empty()) names.push_back("Process");
                                          return names;
                                        }),
                              browsed, [](const ObjectInfo& object) { return object.name; });
  for (const Present<ObjectInfo>& object : answer->objects) {
    if (object.info.name != "Process") continue;
    EXPECT_EQ(object.presence.lacking.size(), FleetBrowser::kLackingNamed);
    EXPECT_EQ(object.presence.lacking.front(), "h01");
    EXPECT_EQ(object.presence.lacking.back(), "h10");
  }
}

TEST(FleetBrowseTest, ErrorsNameWhatLeftNothingToBrowse) {
  BrowsedFleet fleet(kBrowsedFleet);
  Result<FleetObjects> objects = fleet.browser.Objects(BrowseRequest("db*"));
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(objects.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(objects.error(), HasSubstr("no host matches \\\\db*"));
  EXPECT_THAT(objects.error(), HasSubstr("known hosts: "));
  EXPECT_THAT(objects.error(), HasSubstr("web01"));

  objects = fleet.browser.Objects(BrowseRequest("web*", "site=nowhere"));
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(objects.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(objects.error(), HasSubstr("none of the 3 hosts \\\\web* matches is selected by "
                                         "\"site=nowhere\""));
  EXPECT_THAT(fleet.reader.loaded(), IsEmpty());

  // No host has the object: the first one's close names.
  Result<FleetInstances> instances = fleet.browser.Instances(BrowseRequest("web*"), "Proces");
  ASSERT_FALSE(instances.ok());
  EXPECT_EQ(instances.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(instances.error(), HasSubstr("none of the 3 hosts browsed has an object \"Proces\""));
  EXPECT_THAT(instances.error(), HasSubstr("web01: no object 'Proces'"));
  EXPECT_THAT(instances.error(), HasSubstr("close: Process"));
}

}  // namespace
}  // namespace perfhive::query
