// PolicyBook and PolicyFile (server/policies/policy_book.h), and the plan on the wire
// (proto/collection_plan.h): what a policies file means, every mistake in one named with its
// line, revisions that follow content, and a broken file that keeps the policies in force.

#include "server/policies/policy_book.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

namespace perfhive {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

constexpr char kPolicies[] = R"(# Two policies; a host takes the first that names it.
[[policy]]
name = "web"
hosts = ["web*", "shop01"]
queries = ["Global", "Costly@5m", "Processor,Memory@30s"]
interval = "10s"
spool_max_bytes = 536870912

[[policy]]
name = "everyone else"
hosts = ["*"]
interval = "1m"
)";

TEST(PolicyBookTest, AHostTakesThePlanOfTheFirstPolicyThatNamesIt) {
  Result<PolicyBook> book = PolicyBook::Parse(kPolicies, "policies.toml");
  ASSERT_TRUE(book.ok()) << book.error();
  ASSERT_EQ(book->policies().size(), 2u);

  CollectionPlan web = book->PlanFor("WEB01");  // case ignored
  EXPECT_EQ(web.policy, "web");
  ASSERT_EQ(web.queries.size(), 3u);
  EXPECT_EQ(web.queries[0].name, "Global");
  EXPECT_FALSE(web.queries[0].every.has_value());
  EXPECT_EQ(web.queries[1].name, "Costly");
  EXPECT_EQ(web.queries[1].every, milliseconds(300000));
  EXPECT_EQ(web.queries[2].objects, (std::vector<std::string>{"Processor", "Memory"}));
  EXPECT_EQ(web.queries[2].every, milliseconds(30000));
  EXPECT_EQ(web.interval, milliseconds(10000));
  EXPECT_EQ(web.spool_max_bytes, 536870912u);
  EXPECT_EQ(web.revision, PlanRevision(web));
  EXPECT_EQ(web.revision.size(), 12u);
  EXPECT_EQ(book->PlanFor("shop01").revision, web.revision);

  // The catch-all leaves the queries and the spool to the agent.
  CollectionPlan other = book->PlanFor("db01");
  EXPECT_EQ(other.policy, "everyone else");
  EXPECT_TRUE(other.queries.empty());
  EXPECT_EQ(other.interval, milliseconds(60000));
  EXPECT_FALSE(other.spool_max_bytes.has_value());
  EXPECT_NE(other.revision, web.revision);
}

TEST(PolicyBookTest, WithoutAPolicyForTheHostThePlanIsEmpty) {
  Result<PolicyBook> book =
      PolicyBook::Parse("[[policy]]\nname = \"web\"\nhosts = [\"web*\"]\n", "p.toml");
  ASSERT_TRUE(book.ok()) << book.error();
  EXPECT_EQ(book->PlanFor("db01"), CollectionPlan());
  Result<PolicyBook> empty = PolicyBook::Parse("# nothing yet\n", "p.toml");
  ASSERT_TRUE(empty.ok()) << empty.error();
  EXPECT_TRUE(empty->PlanFor("web01").revision.empty());
}

// The revision is the content's: renaming the policy or the order of its keys keeps it, any
// change of what is collected makes another.
TEST(PolicyBookTest, TheRevisionFollowsTheContentOnly) {
  auto revision = [](const std::string& text) {
    Result<PolicyBook> book = PolicyBook::Parse(text, "p.toml");
    EXPECT_TRUE(book.ok()) << book.error();
    return book.ok() ? book->PlanFor("web01").revision : std::string();
  };
  std::string base =
      revision("[[policy]]\nname = \"a\"\nhosts = [\"web*\"]\nqueries = [\"Global@10s\"]\n");
  EXPECT_EQ(base, revision("[[policy]]\nqueries = [\"Global@10s\"]\nhosts = [\"*\"]\n"
                           "name = \"b\"\n"));
  EXPECT_NE(base, revision("[[policy]]\nname = \"a\"\nhosts = [\"web*\"]\n"
                           "queries = [\"Global@11s\"]\n"));
  EXPECT_NE(base, revision("[[policy]]\nname = \"a\"\nhosts = [\"web*\"]\n"
                           "queries = [\"Global@10s\"]\ninterval = \"5s\"\n"));
}

TEST(PolicyBookTest, EveryMistakeIsNamedWithItsLine) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"[[policy]]\nhosts = [\"*\"]\n", "p.toml:1: each [[policy]] needs a name"},
      {"[[policy]]\nname = \"a\"\n", "policy \"a\" needs hosts"},
      {"[[policy]]\nname = \"a\"\nhosts = \"web*\"\n", "p.toml:3: hosts must be a list"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\nqueries = [\"Global@soon\"]\n",
       "p.toml:4: queries: query Global@soon"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\nqueries = []\n",
       "queries is empty; leave it out"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\ninterval = \"10ms\"\n",
       "interval 10ms is not between 100ms and 24h"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\nspool_max_bytes = 1000\n",
       "spool_max_bytes 1000 is under the least"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\nspool = 1\n", "p.toml:4: unknown key \"spool\""},
      // Regression (found by collection_plan_fuzzer): a float beyond int64_t was converted.
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\nspool_max_bytes = 5.3687e19\n",
       "p.toml:4: spool_max_bytes must be a positive integer"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\n[[policy]]\nname = \"A\"\nhosts = [\"*\"]\n",
       "two policies are named \"A\""},
      {"policy = 1\n", "p.toml:1: policies are [[policy]] tables"},
      {"[[policies]]\nname = \"a\"\n", "unknown key \"policies\""},
      {"[[policy]\n", "p.toml:1:"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\ntargets = []\n",
       "targets is empty; leave it out"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\ntargets = ['=db01']\n",
       "expected \\\\HOST[:PORT] or \\\\HOST[:PORT]=NAME"},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\ntargets = ['\\\\db*']\n", "targets: \\\\db*: "},
      {"[[policy]]\nname = \"a\"\nhosts = [\"*\"]\ntargets = ['\\\\db01', '\\\\10.0.0.7=DB01']\n",
       "targets: two are named DB01"},
      // Issue 34: a poller's grant followed the pattern, so any host enrolled later as "poll..."
      // could write as db01.
      {"[[policy]]\nname = \"a\"\nhosts = [\"poll01\", \"poll*\"]\ntargets = ['\\\\db01']\n",
       "p.toml:1: policy \"a\" has targets, so its hosts name each poller exactly (each may write "
       "as every target), not by a pattern: \"poll*\""},
  };
  for (const Case& c : cases) {
    Result<PolicyBook> book = PolicyBook::Parse(c.text, "p.toml");
    ASSERT_FALSE(book.ok()) << c.text;
    EXPECT_THAT(book.error(), HasSubstr(c.message)) << c.text;
  }
}

// Labels are part of the plan of the first policy that names the host: the same policy gives
// its host a plan and labels, and a policy that sets nothing else gives labels only.
TEST(PolicyBookTest, APolicyGivesItsHostsLabels) {
  Result<PolicyBook> book = PolicyBook::Parse(
      "[[policy]]\nname = \"web\"\nhosts = [\"web*\"]\nqueries = [\"Global\"]\n"
      "labels = { role = \"web\", site = \"fra\", \"team.owner\" = \"ops-1\" }\n"
      "[[policy]]\nname = \"rest\"\nhosts = [\"*\"]\nlabels = { env = \"prod\" }\n",
      "p.toml");
  ASSERT_TRUE(book.ok()) << book.error();
  CollectionPlan web = book->PlanFor("WEB07");
  EXPECT_EQ(web.labels,
            (query::HostLabels{{"role", "web"}, {"site", "fra"}, {"team.owner", "ops-1"}}));
  EXPECT_THAT(DescribePlan(web), HasSubstr("labels role=web,site=fra,team.owner=ops-1"));
  CollectionPlan rest = book->PlanFor("db01");
  EXPECT_EQ(rest.labels, (query::HostLabels{{"env", "prod"}}));
  EXPECT_TRUE(rest.queries.empty());
  EXPECT_EQ(DescribePlan(rest), "labels env=prod");

  // The labels are content: another value is another revision; a plan without labels keeps the
  // revision it had before plans had labels (the content text names no label then).
  auto revision = [](const std::string& labels) {
    Result<PolicyBook> parsed = PolicyBook::Parse(
        "[[policy]]\nname = \"a\"\nhosts = [\"*\"]\nqueries = [\"Global@10s\"]\n" + labels,
        "p.toml");
    EXPECT_TRUE(parsed.ok()) << parsed.error();
    return parsed.ok() ? parsed->PlanFor("h").revision : std::string();
  };
  EXPECT_NE(revision("labels = { site = \"ams\" }\n"), revision("labels = { site = \"fra\" }\n"));
  EXPECT_NE(revision("labels = { site = \"ams\" }\n"), revision(""));
  EXPECT_EQ(revision(""), revision("labels = {}\n"));
  // The revision before labels existed: SHA-256 of "perfhive plan 1\nquery Global@10s\n".
  EXPECT_EQ(revision(""), "c7ea2bb3e5c2");
}

// A bad label is named with the file, the line and the column of its value, among the others
// of its inline table.
TEST(PolicyBookTest, ABadLabelIsNamedWithItsLineAndColumn) {
  struct Case {
    const char* labels;
    const char* message;
  };
  const Case cases[] = {
      {"labels = { role = \"web\", \"9x\" = \"a\" }",
       "p.toml:4:33: labels: label \"9x=a\": \"9x\" is not a label key"},
      {"labels = { role = \"web,sql\" }",
       "p.toml:4:19: labels: label \"role=web,sql\": a label's "
       "value is printable UTF-8"},
      {"labels = { role = 1 }", "p.toml:4:19: labels.role must be a string"},
      {"labels = { host = \"web01\" }", "p.toml:4:19: labels: label \"host=web01\": host is the"},
      {"labels = { site = \"\" }", "p.toml:4:19: labels: label \"site=\": a label has a value"},
      {"labels = { a.b = \"x\" }", "p.toml:4:12: labels.a must be a string (quote a key"},
      {"labels = \"role=web\"", "p.toml:4: labels must be a table of strings"},
  };
  for (const Case& c : cases) {
    std::string text = std::string("[[policy]]\nname = \"a\"\nhosts = [\"*\"]\n") + c.labels + "\n";
    Result<PolicyBook> book = PolicyBook::Parse(text, "p.toml");
    ASSERT_FALSE(book.ok()) << c.labels;
    EXPECT_THAT(book.error(), HasSubstr(c.message)) << c.labels;
  }
  std::string many = "labels = {";
  for (int i = 0; i < 33; ++i) many += (i ? ", k" : " k") + std::to_string(i) + " = \"v\"";
  Result<PolicyBook> book =
      PolicyBook::Parse("[[policy]]\nname = \"a\"\nhosts = [\"*\"]\n" + many + " }\n", "p.toml");
  ASSERT_FALSE(book.ok());
  EXPECT_THAT(book.error(), HasSubstr("p.toml:4: labels: a host has at most 32 labels, not 33"));
}

// A poller's plan names the hosts it polls; whoever speaks for the poller may write as exactly
// those (by the name they are filed under, case ignored), and only while the plan says so.
TEST(PolicyBookTest, APollersPlanNamesTheHostsItMayPoll) {
  Result<PolicyBook> book = PolicyBook::Parse(
      "[[policy]]\nname = \"pollers\"\nhosts = [\"poller1\", \"poller2\"]\n"
      "targets = ['\\\\db01', '\\\\10.0.0.7:4455=DB02']\n"
      "[[policy]]\nname = \"rest\"\nhosts = [\"*\"]\ninterval = \"1m\"\n",
      "p.toml");
  ASSERT_TRUE(book.ok()) << book.error();
  CollectionPlan plan = book->PlanFor("POLLER1");
  EXPECT_EQ(plan.targets, (std::vector<std::string>{"\\\\db01", "\\\\10.0.0.7:4455=DB02"}));
  std::vector<RemoteHostConfig> targets = PlannedTargets(plan);
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[1].address, "\\\\10.0.0.7:4455");
  EXPECT_EQ(targets[1].Name(), "DB02");
  EXPECT_THAT(DescribePlan(plan), HasSubstr("polls \\\\db01 \\\\10.0.0.7:4455=DB02"));

  EXPECT_TRUE(book->PollerMayPoll("poller1", "DB01"));
  EXPECT_TRUE(book->PollerMayPoll("POLLER1", "db02"));
  // By the name filed under, not the address.
  EXPECT_FALSE(book->PollerMayPoll("POLLER1", "10.0.0.7"));
  EXPECT_FALSE(book->PollerMayPoll("POLLER1", "db03"));
  // A host no policy gives targets polls nothing for anyone.
  EXPECT_FALSE(book->PollerMayPoll("web01", "db01"));

  // The targets are part of the content: another list is another revision.
  Result<PolicyBook> other = PolicyBook::Parse(
      "[[policy]]\nname = \"pollers\"\nhosts = [\"poller1\"]\ntargets = ['\\\\db01']\n", "p.toml");
  ASSERT_TRUE(other.ok()) << other.error();
  EXPECT_NE(other->PlanFor("POLLER1").revision, plan.revision);
}

TEST(PolicyFileTest, ABrokenFileKeepsThePoliciesInForce) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("policy-file-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = dir / "policies.toml";
  auto write = [&](const std::string& text) { std::ofstream(path, std::ios::trunc) << text; };
  write(kPolicies);
  Result<std::unique_ptr<PolicyFile>> file = PolicyFile::Open(Env::Default(), path);
  ASSERT_TRUE(file.ok()) << file.error();
  std::string web = (*file)->book()->PlanFor("web01").revision;

  Result<bool> unchanged = (*file)->Reload();
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE(*unchanged);

  write("[[policy]]\nname = \"web\"\nhosts = \"web*\"\n");
  Result<bool> broken = (*file)->Reload();
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.error(), HasSubstr("hosts must be a list"));
  EXPECT_EQ((*file)->book()->PlanFor("web01").revision, web);

  std::filesystem::remove(path);
  EXPECT_FALSE((*file)->Reload().ok());
  EXPECT_EQ((*file)->book()->PlanFor("web01").revision, web);

  write("[[policy]]\nname = \"web\"\nhosts = [\"web*\"]\ninterval = \"20s\"\n");
  Result<bool> changed = (*file)->Reload();
  ASSERT_TRUE(changed.ok()) << changed.error();
  EXPECT_TRUE(*changed);
  EXPECT_NE((*file)->book()->PlanFor("web01").revision, web);
  EXPECT_EQ((*file)->book()->PlanFor("web01").interval, milliseconds(20000));
  std::filesystem::remove_all(dir);

  Result<std::unique_ptr<PolicyFile>> missing = PolicyFile::Open(Env::Default(), path);
  EXPECT_FALSE(missing.ok());
}

// The plan crosses the wire and comes back the same; what a server could send beyond the bounds
// is refused by the agent with a message.
TEST(CollectionPlanTest, ThePlanCrossesTheWireAndBadOnesAreRefused) {
  Result<PolicyBook> book = PolicyBook::Parse(kPolicies, "policies.toml");
  ASSERT_TRUE(book.ok()) << book.error();
  CollectionPlan plan = book->PlanFor("web01");
  v1::CollectionPlan message;
  PlanToProto(plan, &message);
  Result<CollectionPlan> back = PlanFromProto(message);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(*back, plan);
  EXPECT_EQ(DescribePlan(plan),
            "Global; Costly@5m; Processor,Memory@30s; interval 10s; spool limit 536870912 bytes");

  PlanToProto(CollectionPlan(), &message);
  Result<CollectionPlan> none = PlanFromProto(message);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, CollectionPlan());

  auto refused = [&](const std::function<void(v1::CollectionPlan&)>& damage) {
    v1::CollectionPlan bad;
    PlanToProto(plan, &bad);
    damage(bad);
    Result<CollectionPlan> read = PlanFromProto(bad);
    return read.ok() ? std::string("accepted") : read.error();
  };
  EXPECT_THAT(refused([](auto& m) { m.mutable_queries(0)->set_name("Everything"); }),
              HasSubstr("is Global, Costly or objects"));
  EXPECT_THAT(refused([](auto& m) { m.mutable_queries(2)->add_objects("a,b"); }),
              HasSubstr("without commas"));
  EXPECT_THAT(refused([](auto& m) { m.set_interval_millis(1); }),
              HasSubstr("interval 1ms is not between"));
  EXPECT_THAT(refused([](auto& m) { m.mutable_queries(0)->set_every_millis(~0ull); }),
              HasSubstr("is not between"));
  EXPECT_THAT(refused([](auto& m) { m.set_revision("two words"); }), HasSubstr("revision"));
  EXPECT_THAT(refused([](auto& m) {
                for (int i = 0; i < 40; ++i) m.add_queries()->set_name("Global");
              }),
              HasSubstr("at most 32 queries"));
  EXPECT_THAT(refused([](auto& m) { m.add_targets("\\\\db01=../etc"); }),
              HasSubstr("is not a host name"));
  EXPECT_THAT(refused([](auto& m) { m.add_targets("\\\\db\x01"); }), HasSubstr("printable"));
  EXPECT_THAT(refused([](auto& m) {
                m.add_targets("\\\\a=X");
                m.add_targets("\\\\b=x");
              }),
              HasSubstr("two are named"));
  EXPECT_THAT(refused([](auto& m) {
                for (int i = 0; i < 1100; ++i) m.add_targets("\\\\h" + std::to_string(i));
              }),
              HasSubstr("at most 1024 targets"));
  EXPECT_THAT(refused([](auto& m) { (*m.mutable_labels())["bad key"] = "x"; }),
              HasSubstr("labels: label \"bad key=x\""));
  EXPECT_THAT(refused([](auto& m) {
                for (int i = 0; i < 40; ++i) (*m.mutable_labels())["k" + std::to_string(i)] = "v";
              }),
              HasSubstr("at most 32 labels"));

  // Labels cross the wire too.
  plan.labels = {{"role", "web"}, {"site", "fra"}};
  PlanToProto(plan, &message);
  back = PlanFromProto(message);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back->labels, plan.labels);
}

}  // namespace
}  // namespace perfhive
