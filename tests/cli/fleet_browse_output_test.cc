// `perfhive objects` and `instances` as they show an answer about several hosts: the heading,
// "N of M" and the LACKING column (three names, the rest counted), and the JSON.

#include "cli/fleet_browse_output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace perfhive::cli {
namespace {

namespace v1 = perfhive::v1;

// 2026-11-22T10:00:00Z and 10:00:05Z.
constexpr int64_t kFirstNs = 1'795'341'600LL * 1'000'000'000;
constexpr int64_t kLastNs = kFirstNs + 5'000'000'000;

// Six hosts browsed, h1 to h6; one more selected without a sample.
v1::BrowsedHosts SixHosts() {
  v1::BrowsedHosts hosts;
  for (const char* name : {"h1", "h2", "h3", "h4", "h5", "h6"}) hosts.add_names(name);
  hosts.set_without_sample(1);
  hosts.set_oldest_sample_unix_nanos(kFirstNs);
  hosts.set_newest_sample_unix_nanos(kLastNs);
  return hosts;
}

void SetPresence(v1::Presence* presence, uint32_t hosts, std::vector<std::string> lacking) {
  presence->set_hosts(hosts);
  for (const std::string& host : lacking) presence->add_lacking(host);
}

v1::ListObjectsResponse ObjectsOnSixHosts() {
  v1::ListObjectsResponse response;
  *response.mutable_fleet() = SixHosts();
  v1::ObjectInfo* processor = response.add_objects();
  processor->set_name("Processor");
  processor->set_instances(14);
  processor->set_counters(7);
  processor->set_detail(v1::DETAIL_LEVEL_NOVICE);
  SetPresence(processor->mutable_presence(), 6, {});
  v1::ObjectInfo* queue = response.add_objects();
  queue->set_name("Print Queue");
  queue->set_instances(-1);
  queue->set_counters(1);
  queue->set_detail(v1::DETAIL_LEVEL_ADVANCED);
  SetPresence(queue->mutable_presence(), 1, {"h1", "h2", "h3", "h4", "h6"});
  return response;
}

v1::BrowseAt Asked(std::string host, std::string selector) {
  v1::BrowseAt where;
  where.set_host(std::move(host));
  where.set_host_selector(std::move(selector));
  return where;
}

TEST(FleetBrowseOutputTest, ObjectsShowHowManyHostsHaveEachAndTheFirstThreeLacking) {
  std::ostringstream out;
  PrintFleetObjects(Asked("web*", "site=ams"), ObjectsOnSixHosts(), OutputFormat::kTable, out);
  EXPECT_EQ(out.str(),
            "\\\\web* (site=ams): 6 hosts, sampled 2026-11-22T10:00:00Z to 2026-11-22T10:00:05Z; "
            "1 more selected had no sample by then\n"
            "OBJECT       HOSTS   INSTANCES  COUNTERS  DETAIL    LACKING\n"
            "Processor    6 of 6  14         7         novice    -\n"
            "Print Queue  1 of 6  -          1         advanced  h1, h2, h3, +2 more\n");
}

TEST(FleetBrowseOutputTest, InstancesSayOnHowManyHostsTheObjectIs) {
  v1::ListInstancesResponse response;
  *response.mutable_fleet() = SixHosts();
  response.mutable_fleet()->set_oldest_sample_unix_nanos(kLastNs);
  response.set_object("Process");
  SetPresence(response.mutable_object_presence(), 5, {"h6"});
  v1::InstanceInfo* app = response.add_instances();
  app->set_name("app#1");
  SetPresence(app->mutable_presence(), 4, {"h2", "h6"});
  std::ostringstream out;
  PrintFleetInstances(Asked("", ""), response, OutputFormat::kTable, out);
  EXPECT_EQ(out.str(),
            "\\\\*\\Process: on 5 of 6 hosts (not on h6), sampled at 2026-11-22T10:00:05Z; 1 more "
            "selected had no sample by then\n"
            "INSTANCE  HOSTS   LACKING\n"
            "app#1     4 of 6  h2, h6\n");

  std::ostringstream json;
  PrintFleetInstances(Asked("", ""), response, OutputFormat::kJson, json);
  nlohmann::json doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["hosts"].size(), 6u);
  EXPECT_EQ(doc["without_sample"], 1);
  EXPECT_EQ(doc["oldest_time"], "2026-11-22T10:00:05Z");
  EXPECT_EQ(doc["object_hosts"], 5);
  EXPECT_EQ(doc["object_lacking"], nlohmann::json({"h6"}));
  EXPECT_EQ(doc["instances"][0]["name"], "app#1");
  EXPECT_EQ(doc["instances"][0]["hosts"], 4);
  EXPECT_EQ(doc["instances"][0]["lacking"], nlohmann::json({"h2", "h6"}));
}

}  // namespace
}  // namespace perfhive::cli
