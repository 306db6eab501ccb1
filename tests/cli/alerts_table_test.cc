// `perfhive alerts` as a table (cli/alerts_command.h): alerts firing first as the server ordered
// them, how long ago things happened, a rule's hosts lacking its counters cut to a few lines,
// and the empty answers of a server without rules and of rules with nothing to say.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "cli/alerts_command.h"

namespace perfhive::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kNow = 1'796'169'600LL * kSecond;  // 2026-12-02T00:00:00Z

std::string Table(const perfhive::v1::ListAlertsResponse& response) {
  std::ostringstream out;
  PrintAlerts(response, AlertsOptions{}, kNow, out);
  return out.str();
}

TEST(AlertsTableTest, AlertsAreRowsAndAFleetsMissingCountersAFewLines) {
  perfhive::v1::ListAlertsResponse response;
  response.set_rules_file("/etc/perfhive/rules.toml");
  perfhive::v1::AlertInfo* firing = response.add_alerts();
  firing->set_rule("ProcessorBusy");
  firing->set_state("firing");
  firing->set_severity("warning");
  firing->set_series("\\\\web01\\Processor(_Total)\\% Processor Time");
  firing->set_active_since_unix_nanos(kNow - 7 * 60 * kSecond);
  firing->set_value(93.25);
  (*firing->mutable_annotations())["summary"] = "web01 at 93.25%";
  perfhive::v1::AlertInfo* resolved = response.add_alerts();
  resolved->set_rule("ProcessorBusy");
  resolved->set_state("resolved");
  resolved->set_series("\\\\web02\\Processor(_Total)\\% Processor Time");
  resolved->set_active_since_unix_nanos(kNow - 3 * 3600 * kSecond);
  resolved->set_resolved_unix_nanos(kNow - 40 * kSecond);
  perfhive::v1::AlertRuleReport* rule = response.add_rules();
  rule->set_name("PagingFileFull");
  for (int k = 0; k < 12; ++k) {
    rule->add_missing("\\Paging File(_Total)\\% Usage: no object \"Paging File\" on lin" +
                      std::to_string(k));
  }
  const std::string table = Table(response);
  EXPECT_THAT(table, HasSubstr("firing            ProcessorBusy  warning   "
                               "\\\\web01\\Processor(_Total)\\% Processor Time  "
                               "2026-12-01T23:53:00Z (7m ago)  93.25  web01 at 93.25%"));
  EXPECT_THAT(table, HasSubstr("resolved 40s ago  ProcessorBusy"));
  EXPECT_THAT(table, HasSubstr("2026-12-01T21:00:00Z (3h ago)"));
  EXPECT_THAT(table, HasSubstr("rule PagingFileFull: 12 paths selected nothing on a host:\n"));
  EXPECT_THAT(table, HasSubstr("on lin4\n  ... and 7 more (perfhive alerts --format json lists"));
  EXPECT_THAT(table, Not(HasSubstr("on lin5")));
  EXPECT_LT(table.find("firing "), table.find("resolved "));
}

TEST(AlertsTableTest, NoRulesAndNothingToSayAreSaid) {
  perfhive::v1::ListAlertsResponse response;
  EXPECT_EQ(Table(response),
            "no alerting rules: start the server with --rules FILE (docs/alerts.md)\n");
  response.set_rules_file("/etc/perfhive/rules.toml");
  response.add_rules()->set_name("ProcessorBusy");
  response.set_reload_error("/etc/perfhive/rules.toml:4:13: condition must be a string");
  EXPECT_EQ(Table(response),
            "the rules file no longer reads, the rules read before stay in force: "
            "/etc/perfhive/rules.toml:4:13: condition must be a string\n"
            "nothing pending or firing (1 rule from /etc/perfhive/rules.toml)\n");
}

}  // namespace
}  // namespace perfhive::cli
