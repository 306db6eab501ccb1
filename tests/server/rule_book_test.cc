// RuleBook and RuleFile (server/alerts/rule_book.h): what a rules file means, every mistake in
// one named with its line and column, the starter file the package ships, and a broken file
// that keeps the rules in force.

#include "server/alerts/rule_book.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace perfhive {
namespace {

using ::testing::HasSubstr;

constexpr char kRules[] = R"(interval = "30s"

[[rule]]
name = "ProcessorBusy"
path = '\Processor(_Total)\% Processor Time'
hosts = "role=web,site=ams*"
condition = "> 90"
for = "5m"
severity = "critical"
labels = { team = "windows" }
summary = "CPU {value}% on {host}, over {threshold}%"

[[rule]]
name = "WebDiskLatency"
path = '\LogicalDisk(*)\Avg. Disk sec/Read'
aggregate = "p95"
by = "role"
condition = ">= 0.02 for 10m"
)";

TEST(RuleBookTest, ARuleIsAReadAndAConditionHeldForADuration) {
  Result<RuleBook> book = RuleBook::Parse(kRules, "rules.toml");
  ASSERT_TRUE(book.ok()) << book.error();
  EXPECT_EQ(book->interval_ns(), 30'000'000'000);
  ASSERT_EQ(book->rules().size(), 2u);

  const AlertRule& busy = book->rules()[0];
  EXPECT_EQ(busy.name, "ProcessorBusy");
  EXPECT_EQ(busy.path, "\\Processor(_Total)\\% Processor Time");
  EXPECT_EQ(busy.condition.comparison, query::HeldCondition::Comparison::kAbove);
  EXPECT_EQ(busy.condition.threshold, 90);
  EXPECT_EQ(busy.condition.for_ns, 300'000'000'000);
  EXPECT_EQ(busy.condition.text, "> 90 for 5m");
  EXPECT_EQ(busy.severity, "critical");
  EXPECT_EQ(busy.labels, (std::map<std::string, std::string>{{"team", "windows"}}));
  EXPECT_FALSE(busy.read.aggregation.has_value());
  EXPECT_EQ(busy.read.paths, std::vector<std::string>{busy.path});
  EXPECT_TRUE(busy.read.hosts.Matches("web01", {{"role", "web"}, {"site", "ams1"}}));
  EXPECT_FALSE(busy.read.hosts.Matches("web02", {{"role", "web"}, {"site", "fra"}}));
  EXPECT_EQ(busy.step_ns, 0);

  const AlertRule& latency = book->rules()[1];
  EXPECT_EQ(latency.severity, "warning");
  EXPECT_EQ(latency.condition.comparison, query::HeldCondition::Comparison::kAtLeast);
  EXPECT_EQ(latency.condition.for_ns, 600'000'000'000);
  ASSERT_TRUE(latency.read.aggregation.has_value());
  EXPECT_EQ(latency.read.aggregation->by.kind, query::GroupBy::Kind::kLabel);
  EXPECT_EQ(latency.read.aggregation->by.label, "role");
  ASSERT_EQ(latency.read.aggregation->functions.size(), 1u);
  EXPECT_EQ(latency.read.aggregation->functions[0], query::AggregateFunction::kP95);
  // An aggregate without its own step takes the interval's.
  EXPECT_EQ(latency.step_ns, 30'000'000'000);
}

TEST(RuleBookTest, EveryMistakeIsNamedWithItsLineAndColumn) {
  const std::string head = "[[rule]]\nname = \"r\"\npath = '\\Memory\\Available MBytes'\n";
  struct Case {
    std::string text;
    std::string error;
  };
  const Case cases[] = {
      {"[[rule]]\npath = '\\Memory\\Pages/sec'\ncondition = \"> 1\"\n",
       "r.toml:1:1: each [[rule]] needs a name"},
      {"[[rule]]\nname = \"r\"\ncondition = \"> 1\"\n", "r.toml:1:1: rule \"r\": needs a path"},
      {head, "r.toml:1:1: rule \"r\": needs a condition"},
      {head + "condition = \"above 1\"\n",
       "r.toml:4:13: condition \"above 1\": it does not begin with a comparison"},
      {head + "condition = 90\n", "r.toml:4:13: condition must be a string"},
      {head + "condition = \"> 1 for 5m\"\nfor = \"5m\"\n",
       "r.toml:5:7: rule \"r\": the condition says for how long already"},
      {head + "condition = \"> 1\"\nfor = \"soon\"\n",
       "r.toml:5:7: for \"soon\" is not a span such as 30s, 5m or 1h"},
      {head + "condition = \"> 1\"\nstep = \"1m\"\n",
       "r.toml:5:8: rule \"r\": a step is the aggregate's; give aggregate too"},
      {head + "condition = \"> 1\"\nby = \"role\"\n",
       "r.toml:1:1: rule \"r\": by groups an aggregate; give aggregate too"},
      {head + "condition = \"> 1\"\naggregate = \"avg,p95\"\n",
       "r.toml:1:1: rule \"r\": aggregate is one function; write a rule for each"},
      {head + "condition = \"> 1\"\naggregate = \"mean\"\n", "r.toml:1:1: rule \"r\": "},
      {head + "condition = \"> 1\"\nhosts = \"role\"\n", "r.toml:1:1: rule \"r\": "},
      {head + "condition = \"> 1\"\nsummary = \"{hots} is slow\"\n",
       "r.toml:5:11: summary: unknown placeholder {hots}"},
      {head + "condition = \"> 1\"\nseverity = \"\"\n", "r.toml:5:12: severity is empty"},
      {head + "condition = \"> 1\"\nlabels = { alertname = \"x\" }\n",
       "r.toml:5:10: labels: alertname is the rule's own"},
      {head + "condition = \"> 1\"\nthreshold = 3\n", "r.toml:5:13: unknown key \"threshold\""},
      {"[[rule]]\nname = \"r\"\npath = 'Memory'\ncondition = \"> 1\"\n",
       "r.toml:1:1: rule \"r\": path: "},
      {head + "condition = \"> 1\"\n" + head + "condition = \"> 2\"\n",
       "r.toml:5:1: two rules are named \"r\""},
      {"interval = \"0s\"\n", "r.toml:1:12: interval \"0s\" is not a span"},
      {"rules = 1\n", "r.toml:1:9: unknown key \"rules\"; rules are [[rule]] tables"},
      {"[[rule]\n", "r.toml:1:"},
  };
  for (const Case& c : cases) {
    Result<RuleBook> book = RuleBook::Parse(c.text, "r.toml");
    ASSERT_FALSE(book.ok()) << c.text;
    EXPECT_EQ(book.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(book.error(), HasSubstr(c.error)) << c.text;
    EXPECT_EQ(book.error().rfind("r.toml:", 0), 0u) << book.error();
  }
}

// The file the package installs as /etc/perfhive/rules.toml reads as it is, and each of its
// rules cites where its threshold comes from.
TEST(RuleBookTest, TheShippedStarterRulesRead) {
  std::ifstream file(PERFHIVE_SHIPPED_RULES);
  ASSERT_TRUE(file) << PERFHIVE_SHIPPED_RULES;
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Result<RuleBook> book = RuleBook::Parse(text, "rules.toml");
  ASSERT_TRUE(book.ok()) << book.error();
  EXPECT_GE(book->rules().size(), 8u);
  std::set<std::string> paths;
  for (const AlertRule& rule : book->rules()) paths.insert(rule.path);
  for (const char* path : {"\\Processor(_Total)\\% Processor Time", "\\Memory\\Available MBytes",
                           "\\Memory\\Pages/sec"}) {
    EXPECT_EQ(paths.count(path), 1u) << path;
  }
  // The text before each [[rule]], back to the one before it, names its source (a link, or the
  // rule above whose source it shares).
  size_t cited = 0;
  size_t previous = 0;
  for (size_t at = text.find("[[rule]]"); at != std::string::npos;
       at = text.find("[[rule]]", at + 1)) {
    if (text.substr(previous, at - previous).find("# Source: ") != std::string::npos) ++cited;
    previous = at + 1;
  }
  EXPECT_EQ(cited, book->rules().size());
}

TEST(RuleFileTest, ABrokenFileKeepsTheRulesInForceAndSaysWhy) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rule-file-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir / "rules.toml";
  auto write = [&](const std::string& text) { std::ofstream(path, std::ios::trunc) << text; };
  write(kRules);
  Result<std::unique_ptr<RuleFile>> file = RuleFile::Open(Env::Default(), path);
  ASSERT_TRUE(file.ok()) << file.error();
  EXPECT_EQ((*file)->book()->rules().size(), 2u);
  EXPECT_EQ((*file)->reload_error(), "");

  Result<bool> unchanged = (*file)->Reload();
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE(*unchanged);

  write(std::string(kRules) + "[[rule]]\nname = \"half\"\n");
  Result<bool> broken = (*file)->Reload();
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.error(), HasSubstr(":19:1: rule \"half\": needs a path"));
  EXPECT_EQ((*file)->book()->rules().size(), 2u);
  EXPECT_EQ((*file)->reload_error(), broken.error());

  std::filesystem::remove(path);
  EXPECT_FALSE((*file)->Reload().ok());
  EXPECT_EQ((*file)->book()->rules().size(), 2u);
  EXPECT_THAT((*file)->reload_error(), HasSubstr("rules: "));

  write("[[rule]]\nname = \"one\"\npath = '\\Memory\\Pages/sec'\ncondition = \"> 1000\"\n");
  Result<bool> fixed = (*file)->Reload();
  ASSERT_TRUE(fixed.ok()) << fixed.error();
  EXPECT_TRUE(*fixed);
  EXPECT_EQ((*file)->book()->rules().size(), 1u);
  EXPECT_EQ((*file)->reload_error(), "");
  EXPECT_EQ((*file)->book()->interval_ns(), RuleBook::kDefaultIntervalNs);

  std::filesystem::remove_all(dir);
  Result<std::unique_ptr<RuleFile>> missing = RuleFile::Open(Env::Default(), path);
  EXPECT_FALSE(missing.ok());
}

}  // namespace
}  // namespace perfhive
