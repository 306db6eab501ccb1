// `perfhive hosts` as it shows what the server listed: the POLICY column (the plan each host's
// agent applied against the one the server's policies give it now), the count of hosts behind,
// the LABELS column, and the plan fields and labels of the JSON output.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/stored_snapshot_commands.h"

namespace perfhive::cli {
namespace {

namespace v1 = perfhive::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

v1::HostInfo Host(std::string name, std::string applied, std::string latest,
                  std::string report = "") {
  v1::HostInfo host;
  host.set_name(std::move(name));
  host.set_os("Windows Server 2022");
  host.set_agent_version("1.0");
  host.set_plan_revision(std::move(applied));
  host.set_plan_latest(std::move(latest));
  host.set_plan_report(std::move(report));
  return host;
}

std::string Print(std::vector<v1::HostInfo> hosts, OutputFormat format = OutputFormat::kTable) {
  v1::ListHostsResponse response;
  for (v1::HostInfo& host : hosts) *response.add_hosts() = std::move(host);
  std::ostringstream out;
  PrintHosts(response, HostsOptions{.pattern = "", .format = format}, out);
  return out.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Each row's cell of the column headed `title`, up to the one headed `next` (the table's lines,
// the header first; every text here is ASCII, so a column starts at the same byte on every line).
std::vector<std::string> Cells(const std::vector<std::string>& table, const std::string& title,
                               const std::string& next) {
  const size_t start = table[0].find(title);
  const size_t end = table[0].find(next);
  std::vector<std::string> cells;
  for (size_t i = 1; i < table.size(); ++i) {
    std::string cell = table[i].substr(start, end - start);
    cells.push_back(cell.substr(0, cell.find_last_not_of(' ') + 1));
  }
  return cells;
}
std::vector<std::string> PolicyCells(const std::vector<std::string>& table) {
  return Cells(table, "POLICY", "LABELS");
}

constexpr const char* kLatest = "1a2b3c4d5e6f";

TEST(HostsTableTest, PolicyShowsTheAppliedPlanAndTheLatestWhenTheyDiffer) {
  std::vector<std::string> lines = Lines(Print({
      Host("web01", "", ""),
      Host("web02", kLatest, kLatest),
      Host("web03", "9f8e7d6c5b4a", kLatest),
      Host("web04", "", kLatest),
      Host("web05", "9f8e7d6c5b4a", ""),
  }));
  ASSERT_EQ(lines.size(), 7u);  // the header, a row per host, the count behind
  EXPECT_THAT(PolicyCells({lines.begin(), lines.end() - 1}),
              ElementsAre("-", kLatest, "9f8e7d6c5b4a, latest 1a2b3c4d5e6f",
                          "none, latest 1a2b3c4d5e6f", "9f8e7d6c5b4a, latest none"));
  EXPECT_EQ(lines.back(), "3 hosts have not applied their latest plan");
}

TEST(HostsTableTest, AReportIsAStarAfterTheAppliedRevision) {
  const std::string report = "spool_max_bytes: the plan's 512 MiB overrides the local 1 GiB";
  std::string out = Print({
      Host("web01", kLatest, kLatest, report),
      Host("web02", "", kLatest, "not applied: queries: unknown object \"Foo\""),
      Host("web03", "", "", "not applied: queries: unknown object \"Foo\""),
  });
  std::vector<std::string> lines = Lines(out);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_THAT(PolicyCells({lines.begin(), lines.end() - 1}),
              ElementsAre("1a2b3c4d5e6f*", "none*, latest 1a2b3c4d5e6f", "none*"));
  EXPECT_EQ(lines.back(), "1 host has not applied its latest plan");
  // The reports themselves are for --format json.
  EXPECT_THAT(out, Not(HasSubstr("overrides")));
  EXPECT_THAT(out, Not(HasSubstr("unknown object")));
}

TEST(HostsTableTest, NoCountWhenEveryHostAppliedItsLatestPlan) {
  std::vector<std::string> lines =
      Lines(Print({Host("web01", "", ""), Host("web02", kLatest, kLatest)}));
  ASSERT_EQ(lines.size(), 3u);  // the header and a row per host
  EXPECT_THAT(PolicyCells(lines), ElementsAre("-", kLatest));
}

// A revision is what the agent said it applied: shown escaped, like every text a host sent.
TEST(HostsTableTest, AnAppliedRevisionIsShownEscaped) {
  std::string out = Print({Host("web01", "1a2b\x1b[31m\nforged", kLatest)});
  EXPECT_THAT(out, HasSubstr("1a2b\\x1B[31m\\nforged, latest 1a2b3c4d5e6f"));
  EXPECT_EQ(Lines(out).size(), 3u);
}

TEST(HostsTableTest, JsonHasThePlanFieldsWhole) {
  const std::string report = "interval: the plan's 10s overrides the local 5s\nqueries: Costly";
  std::string out = Print({Host("web01", "9f8e7d6c5b4a", kLatest, report), Host("web02", "", "")},
                          OutputFormat::kJson);
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << out;
  ASSERT_EQ(doc["hosts"].size(), 2u);
  const nlohmann::ordered_json& host = doc["hosts"][0];
  EXPECT_EQ(host["plan_revision"], "9f8e7d6c5b4a");
  EXPECT_EQ(host["plan_latest"], kLatest);
  EXPECT_EQ(host["plan_report"], report);
  EXPECT_EQ(doc["hosts"][1]["plan_revision"], "");
  EXPECT_EQ(doc["hosts"][1]["plan_latest"], "");
  EXPECT_EQ(doc["hosts"][1]["plan_report"], "");
  // Every field from before is still there, in its place.
  std::vector<std::string> keys;
  for (const auto& [key, value] : host.items()) keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("name", "os", "os_version", "source", "agent_version", "first_seen",
                                "last_seen", "snapshots", "stored_bytes", "refused", "last_error",
                                "last_error_time", "credential", "credential_expires",
                                "plan_revision", "plan_latest", "plan_report", "labels"));
}

// The labels the server gives each host: KEY=VALUE in key order in the table ("-" for none), an
// object in JSON ({} for none).
TEST(HostsTableTest, LabelsAreAColumnAndAnObject) {
  v1::HostInfo web = Host("web01", "", "");
  (*web.mutable_labels())["site"] = "fra";
  (*web.mutable_labels())["role"] = "web";
  std::vector<std::string> lines = Lines(Print({web, Host("web02", "", "")}));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(Cells(lines, "LABELS", "LAST ERROR"), ElementsAre("role=web,site=fra", "-"));
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(
      Print({web, Host("web02", "", "")}, OutputFormat::kJson), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["hosts"][0]["labels"].dump(), R"({"role":"web","site":"fra"})");
  EXPECT_EQ(doc["hosts"][1]["labels"].dump(), "{}");
}

}  // namespace
}  // namespace perfhive::cli
