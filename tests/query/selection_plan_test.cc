// SelectionPlan: a plan made on one sample fits the next only when names, layout and identities
// are the same, and then reads that sample's own values.

#include "query/selection_plan.h"

#include <gtest/gtest.h>

#include "perfdata/raw_counter.h"
#include "tests/query/query_test_hosts.h"

namespace perfhive::query {
namespace {

using namespace testing;  // NOLINT: the test hosts

struct Opened {
  HostSample sample;
  SnapshotReader reader;
};

Opened Open(const std::vector<TestProcess>& processes,
            std::shared_ptr<const TitleDatabase> titles = EnglishTitles()) {
  SnapshotBuilder builder = HostAt(1);
  AddProcesses(builder, 1, processes);
  HostSample sample = SampleOf(builder, 1, std::move(titles));
  SnapshotReader reader = SnapshotReader::Open(*sample.bytes).value();
  return {std::move(sample), reader};
}

// A plan of "\Process(*)\% Processor Time" made on `made_on`.
SelectionPlan PlanOn(const Opened& made_on) {
  SelectionPlan plan;
  plan.Begin(made_on.reader, made_on.sample.english.get(), nullptr);
  PathExpander expander(made_on.reader, *made_on.sample.english);
  size_t series = 0;
  for (const CounterMatch& match :
       expander.Expand(ParseCounterPath("\\Process(*)\\% Processor Time").value())) {
    plan.Add(series++, match);
  }
  plan.Seal();
  return plan;
}

bool Fits(const SelectionPlan& plan, const Opened& sample) {
  return plan.Fits(sample.reader, sample.sample.english.get(), nullptr);
}

TEST(SelectionPlanTest, FitsTheSameLayoutAndReadsItsValues) {
  Opened first = Open({{"java", 100, 1, 5}, {"java", 200, 2, 7}});
  SelectionPlan plan = PlanOn(first);
  Opened next = Open({{"java", 100, 1, 50'000}, {"java", 200, 2, 70'000}}, first.sample.english);
  ASSERT_TRUE(Fits(plan, next));
  ASSERT_EQ(plan.entries().size(), 2u);
  std::vector<uint64_t> values;
  for (const SelectionPlan::Entry& entry : plan.entries()) {
    ObjectView object = SelectionPlan::ObjectOf(next.reader, entry);
    std::optional<CounterDefinitionView> following = SelectionPlan::NextOf(next.reader, entry);
    RawCounter raw = ReadRawCounter(SampleTimes::Of(next.reader, object),
                                    SelectionPlan::CounterOf(next.reader, entry),
                                    following ? &*following : nullptr,
                                    SelectionPlan::InstanceOf(next.reader, entry).counters());
    values.push_back(raw.value);
  }
  EXPECT_EQ(values, (std::vector<uint64_t>{50'000, 70'000}));
}

TEST(SelectionPlanTest, DoesNotFitAnotherProcessNameOrTitles) {
  Opened first = Open({{"java", 100, 1, 5}, {"java", 200, 2, 7}});
  SelectionPlan plan = PlanOn(first);
  // The second java is another process: same name and PID, another start.
  EXPECT_FALSE(Fits(plan, Open({{"java", 100, 1, 5}, {"java", 200, 3, 7}}, first.sample.english)));
  EXPECT_FALSE(Fits(plan, Open({{"java", 100, 1, 5}, {"java", 300, 2, 7}}, first.sample.english)));
  // A name of the same length: every offset stays, the names do not.
  EXPECT_FALSE(Fits(plan, Open({{"java", 100, 1, 5}, {"jawa", 200, 2, 7}}, first.sample.english)));
  EXPECT_FALSE(Fits(plan, Open({{"java", 100, 1, 5}}, first.sample.english)));
  // The same bytes read with another title database may name other objects.
  EXPECT_FALSE(Fits(plan, Open({{"java", 100, 1, 5}, {"java", 200, 2, 7}})));
  plan.Clear();
  EXPECT_FALSE(Fits(plan, first));
}

TEST(SelectionPlanTest, IsNotKeptForInstancesThatNameParents) {
  auto titles = std::make_shared<TitleDatabase>();
  titles->AddName(title_index::kProcess, "Process");
  titles->AddName(title_index::kThread, "Thread");
  titles->AddName(title_index::kIdThread, "ID Thread");
  SnapshotBuilder builder = HostAt(1);
  ObjectBuilder& process = builder.AddObject(title_index::kProcess);
  process.AddInstance("java");
  ObjectBuilder& thread = builder.AddObject(title_index::kThread);
  uint32_t tid = thread.AddCounter({title_index::kIdThread, winperf::kCounterRawcount});
  thread.SetValue(thread.AddInstance("0", winperf::kNoUniqueId, title_index::kProcess, 0), tid, 8);
  HostSample sample = SampleOf(builder, 1, titles);
  SnapshotReader reader = SnapshotReader::Open(*sample.bytes).value();

  SelectionPlan plan;
  plan.Begin(reader, titles.get(), nullptr);
  PathExpander expander(reader, *titles);
  for (const CounterMatch& match :
       expander.Expand(ParseCounterPath("\\Thread(*)\\ID Thread").value())) {
    plan.Add(0, match);
  }
  plan.Seal();
  EXPECT_EQ(plan.entries().size(), 1u);
  EXPECT_FALSE(plan.Fits(reader, titles.get(), nullptr));
}

}  // namespace
}  // namespace perfhive::query
