// Instance naming as PDH does it and wildcard expansion against a snapshot and its titles.

#include "perfdata/path_expander.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perfdata/instance_names.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

using ::testing::ElementsAre;
namespace wp = winperf;

// Process: svchost, explorer, svchost, svchost, an unnamed instance with UniqueID 4242;
// Thread: 0 and 1 of explorer, 0 of the second svchost, one naming a parent out of range, 0 of
// the first svchost.
std::vector<uint8_t> HostSnapshot() {
  SnapshotBuilder builder;
  builder.set_system_name("WEB01");
  ObjectBuilder& memory = builder.AddObject(4);
  memory.AddCounter({.name_index = 24, .type = wp::kCounterLargeRawcount});
  memory.set_no_instances();
  memory.SetValue(0, 0, 123456);
  ObjectBuilder& process = builder.AddObject(230);
  process.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  process.AddCounter({.name_index = 784, .type = wp::kCounterRawcount});
  for (const char* name : {"svchost", "explorer", "svchost", "svchost"}) process.AddInstance(name);
  process.AddInstance("", 4242);
  for (uint32_t i = 0; i < 5; ++i) process.SetValue(i, 1, 100 + i);
  ObjectBuilder& thread = builder.AddObject(232);
  thread.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  thread.AddCounter({.name_index = 804, .type = wp::kCounterRawcount});
  thread.AddInstance("0", -1, 230, 1);
  thread.AddInstance("1", -1, 230, 1);
  thread.AddInstance("0", -1, 230, 2);
  thread.AddInstance("7", -1, 230, 99);
  thread.AddInstance("0", -1, 230, 0);  // thread 0 of the first svchost: svchost/0#1
  ObjectBuilder& disk = builder.AddObject(236);
  disk.AddCounter({.name_index = 408, .type = wp::kRawFraction});
  disk.AddCounter({.name_index = 408, .type = wp::kRawBase});
  disk.AddInstance("C:");
  return builder.Build();
}

TitleDatabase English() {
  TitleDatabase db;
  db.AddName(4, "Memory");
  db.AddName(24, "Available Bytes");
  db.AddName(230, "Process");
  db.AddName(232, "Thread");
  db.AddName(236, "LogicalDisk");
  db.AddName(6, "% Processor Time");
  db.AddName(784, "ID Process");
  db.AddName(804, "ID Thread");
  db.AddName(408, "% Free Space");
  db.AddName(9000, "ID Process");  // the same name elsewhere: must not leak into Process
  return db;
}

TitleDatabase German() {
  TitleDatabase db;
  db.AddName(230, "Prozess");
  db.AddName(6, "Prozessorzeit (%)");
  return db;
}

class PathExpanderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = HostSnapshot();
    Result<SnapshotReader> reader = SnapshotReader::Open(bytes_);
    ASSERT_TRUE(reader.ok()) << reader.error();
    snapshot_.emplace(*reader);
  }

  std::vector<std::string> Paths(std::string_view text) {
    Result<CounterPath> path = ParseCounterPath(text);
    EXPECT_TRUE(path.ok()) << path.error();
    PathExpander expander(*snapshot_, english_, &german_);
    std::vector<std::string> paths;
    for (const CounterMatch& match : expander.Expand(*path)) paths.push_back(match.path);
    return paths;
  }

  std::vector<uint8_t> bytes_;
  std::optional<SnapshotReader> snapshot_;
  TitleDatabase english_ = English();
  TitleDatabase german_ = German();
};

TEST_F(PathExpanderTest, InstanceNamesFollowPdh) {
  std::vector<std::string> process, thread;
  for (ObjectView object : snapshot_->objects()) {
    for (const InstancePathName& name : NameInstances(*snapshot_, object)) {
      if (object.name_index() == 230) process.push_back(name.ToString());
      if (object.name_index() == 232) thread.push_back(name.ToString());
    }
  }
  EXPECT_THAT(process, ElementsAre("svchost", "explorer", "svchost#1", "svchost#2", "4242"));
  // A parent position out of range names no parent.
  EXPECT_THAT(thread, ElementsAre("explorer/0", "explorer/1", "svchost/0", "7", "svchost/0#1"));
}

TEST_F(PathExpanderTest, ExactPathSelectsOneCounter) {
  EXPECT_THAT(Paths("\\Process(svchost#1)\\ID Process"),
              ElementsAre("\\\\WEB01\\Process(svchost#1)\\ID Process"));
  EXPECT_THAT(Paths("\\Process(svchost)\\ID Process"),
              ElementsAre("\\\\WEB01\\Process(svchost)\\ID Process"));
  EXPECT_THAT(Paths("\\\\web01\\memory\\available bytes"),
              ElementsAre("\\\\WEB01\\Memory\\Available Bytes"));
  EXPECT_TRUE(Paths("\\\\OTHER\\Memory\\Available Bytes").empty());
  EXPECT_TRUE(Paths("\\Process(nosuch)\\ID Process").empty());
  EXPECT_TRUE(Paths("\\Memory(x)\\Available Bytes").empty());  // Memory has no instances
}

TEST_F(PathExpanderTest, WildcardsExpandEveryPart) {
  EXPECT_THAT(Paths("\\Process(svc*)\\ID Process"),
              ElementsAre("\\\\WEB01\\Process(svchost)\\ID Process",
                          "\\\\WEB01\\Process(svchost#1)\\ID Process",
                          "\\\\WEB01\\Process(svchost#2)\\ID Process"));
  EXPECT_THAT(Paths("\\Thread(explorer/*)\\ID Thread"),
              ElementsAre("\\\\WEB01\\Thread(explorer/0)\\ID Thread",
                          "\\\\WEB01\\Thread(explorer/1)\\ID Thread"));
  EXPECT_EQ(Paths("\\Thread(*/*)\\*").size(), 8u);           // 4 threads with parents × 2 counters
  EXPECT_EQ(Paths("\\Thread(*)\\*").size(), 10u);            // every thread
  EXPECT_EQ(Paths("\\*(*)\\% Processor Time").size(), 10u);  // 5 processes + 5 threads
  // A wildcard anywhere in the instance part selects every duplicate, each with its #Index.
  EXPECT_THAT(Paths("\\Thread(*/0)\\ID Thread"),
              ElementsAre("\\\\WEB01\\Thread(explorer/0)\\ID Thread",
                          "\\\\WEB01\\Thread(svchost/0)\\ID Thread",
                          "\\\\WEB01\\Thread(svchost/0#1)\\ID Thread"));
  EXPECT_THAT(Paths("\\Thread(svchost/0)\\ID Thread"),
              ElementsAre("\\\\WEB01\\Thread(svchost/0)\\ID Thread"));
  EXPECT_THAT(Paths("\\Thread(7)\\ID Thread"), ElementsAre("\\\\WEB01\\Thread(7)\\ID Thread"));
  EXPECT_TRUE(Paths("\\Thread(0)\\ID Thread").empty());  // every thread 0 has a parent
  EXPECT_THAT(Paths("\\\\*\\Process(explorer)\\*"),
              ElementsAre("\\\\WEB01\\Process(explorer)\\% Processor Time",
                          "\\\\WEB01\\Process(explorer)\\ID Process"));
}

TEST_F(PathExpanderTest, HashStarSelectsEveryDuplicate) {
  EXPECT_THAT(Paths("\\Process(svchost#*)\\ID Process"),
              ElementsAre("\\\\WEB01\\Process(svchost)\\ID Process",
                          "\\\\WEB01\\Process(svchost#1)\\ID Process",
                          "\\\\WEB01\\Process(svchost#2)\\ID Process"));
  EXPECT_THAT(Paths("\\Thread(svchost/0#*)\\ID Thread"),
              ElementsAre("\\\\WEB01\\Thread(svchost/0)\\ID Thread",
                          "\\\\WEB01\\Thread(svchost/0#1)\\ID Thread"));
  EXPECT_EQ(Paths("\\Thread(*/*#*)\\ID Thread").size(), 4u);  // the threads with a parent
  EXPECT_EQ(Paths("\\Thread(*#*)\\ID Thread").size(), 5u);    // every thread
  EXPECT_TRUE(Paths("\\Process(explorer#*)\\Nosuch").empty());
}

TEST_F(PathExpanderTest, BaseCountersAreNeverSelected) {
  EXPECT_THAT(Paths("\\LogicalDisk(*)\\*"),
              ElementsAre("\\\\WEB01\\LogicalDisk(C:)\\% Free Space"));
}

TEST_F(PathExpanderTest, LocalizedNamesAndIndexesWork) {
  EXPECT_THAT(Paths("\\Prozess(explorer)\\Prozessorzeit (%)"),
              ElementsAre("\\\\WEB01\\Process(explorer)\\% Processor Time"));
  EXPECT_THAT(Paths("\\230(explorer)\\784"),
              ElementsAre("\\\\WEB01\\Process(explorer)\\ID Process"));
}

TEST_F(PathExpanderTest, IndexesWithoutTitlesAreMatchedByWildcardsAsShown) {
  TitleDatabase no_titles;
  PathExpander expander(*snapshot_, no_titles);
  std::vector<std::string> paths;
  for (const CounterMatch& match : expander.Expand(*ParseCounterPath("\\*\\*"))) {
    paths.push_back(match.path);
  }
  EXPECT_THAT(paths, ElementsAre("\\\\WEB01\\4\\24"));
  EXPECT_EQ(expander.DisplayName(230), "230");
}

TEST_F(PathExpanderTest, MatchesCarryWhatIsNeededToReadTheValue) {
  Result<CounterPath> path = ParseCounterPath("\\Process(svchost#2)\\ID Process");
  PathExpander expander(*snapshot_, english_);
  std::vector<CounterMatch> matches = expander.Expand(*path);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].object_position, 1u);   // Memory, Process
  EXPECT_EQ(matches[0].counter_position, 1u);  // % Processor Time, ID Process
  EXPECT_EQ(matches[0].instance_position, 3u);
  EXPECT_EQ(matches[0].instance.counters().Value(matches[0].counter), 103u);
  EXPECT_FALSE(matches[0].next.has_value());
  std::vector<CounterMatch> disk =
      expander.Expand(*ParseCounterPath("\\LogicalDisk(C:)\\% Free Space"));
  ASSERT_EQ(disk.size(), 1u);
  ASSERT_TRUE(disk[0].next.has_value());
  EXPECT_EQ(disk[0].next->type(), wp::kRawBase);
}

// The store restores only the objects ObjectNameFilter selects before the expander sees the
// snapshot: it may take more than the expander selects, never less.
TEST_F(PathExpanderTest, ObjectNameFilterSelectsEveryObjectTheExpanderLooksInto) {
  const char* const texts[] = {R"(\\WEB01\Process(*)\*)",
                               R"(\Prozess(explorer)\*)",
                               R"(\230(*)\784)",
                               R"(\Proc*(*)\% Processor Time)",
                               R"(\*\*)",
                               R"(\Memory\*)",
                               R"(\LogicalDisk(*)\% Free Space)",
                               R"(\4\24)",
                               R"(\Nope\*)"};
  for (const char* text : texts) {
    Result<CounterPath> path = ParseCounterPath(text);
    ASSERT_TRUE(path.ok()) << path.error();
    ObjectNameFilter filter(std::span<const CounterPath>(&*path, 1));
    PathExpander expander(*snapshot_, english_, &german_);
    for (const ObjectView& object : expander.ObjectsSelected(*path)) {
      EXPECT_TRUE(filter.Selects(object.name_index(), &english_, &german_))
          << text << " selects object " << object.name_index();
    }
  }
  std::vector<CounterPath> paths = {*ParseCounterPath(R"(\Prozess(*)\*)"),
                                    *ParseCounterPath(R"(\Memory\*)")};
  ObjectNameFilter filter(paths);
  EXPECT_TRUE(filter.Selects(230, &english_, &german_));
  EXPECT_FALSE(filter.Selects(230, &english_));  // a German name needs the German database
  EXPECT_TRUE(filter.Selects(4, &english_));
  EXPECT_FALSE(filter.Selects(232, &english_, &german_));
  EXPECT_FALSE(filter.Selects(236, &english_, &german_));
  // By index where no database names it, as the expander shows it.
  TitleDatabase no_titles;
  EXPECT_TRUE(ObjectNameFilter(std::vector<CounterPath>{*ParseCounterPath(R"(\23*\*)")})
                  .Selects(232, &no_titles));
  EXPECT_FALSE(ObjectNameFilter(std::vector<CounterPath>{*ParseCounterPath(R"(\23*\*)")})
                   .Selects(232, &english_));
}

// A Russian host: its own names work in any case, and duplicates differ in case only.
TEST(PathExpanderLocalizedHostTest, NamesMatchIgnoringCaseInTheHostsScript) {
  SnapshotBuilder builder;
  builder.set_system_name("СЕРВЕР");
  ObjectBuilder& processor = builder.AddObject(238);
  processor.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  processor.AddInstance("0");
  processor.AddInstance("_Total");
  ObjectBuilder& process = builder.AddObject(230);
  process.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  for (const char* name : {"Ява", "ява", "Проводник"}) process.AddInstance(name);
  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> snapshot = SnapshotReader::Open(bytes);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  TitleDatabase english;
  english.AddName(238, "Processor");
  english.AddName(230, "Process");
  english.AddName(6, "% Processor Time");
  TitleDatabase russian;
  russian.AddName(238, "Процессор");
  russian.AddName(230, "Процесс");
  russian.AddName(6, "% загруженности процессора");
  PathExpander expander(*snapshot, english, &russian);
  auto paths = [&expander](std::string_view text) {
    Result<CounterPath> path = ParseCounterPath(text);
    EXPECT_TRUE(path.ok()) << path.error();
    std::vector<std::string> found;
    for (const CounterMatch& match : expander.Expand(*path)) found.push_back(match.path);
    return found;
  };
  for (const char* text : {"\\\\сервер\\Процессор(_Total)\\% загруженности процессора",
                           "\\процессор(_total)\\% загруженности процессора",
                           "\\ПРОЦЕССОР(_TOTAL)\\% ЗАГРУЖЕННОСТИ ПРОЦЕССОРА",
                           "\\Processor(_Total)\\% ЗАГРУЖЕННОСТИ процессора"}) {
    EXPECT_THAT(paths(text), ElementsAre("\\\\СЕРВЕР\\Processor(_Total)\\% Processor Time"))
        << text;
  }
  EXPECT_THAT(paths("\\ПРОЦЕСС(ЯВА)\\% загруженности процессора"),
              ElementsAre("\\\\СЕРВЕР\\Process(Ява)\\% Processor Time"));
  EXPECT_THAT(paths("\\процесс(ЯВА#1)\\% загруженности процессора"),
              ElementsAre("\\\\СЕРВЕР\\Process(ява#1)\\% Processor Time"));
  EXPECT_THAT(paths("\\процесс(я*)\\% ЗАГРУЖЕННОСТИ*"),
              ElementsAre("\\\\СЕРВЕР\\Process(Ява)\\% Processor Time",
                          "\\\\СЕРВЕР\\Process(ява#1)\\% Processor Time"));
  EXPECT_THAT(paths("\\процесс(*НИК)\\*"),
              ElementsAre("\\\\СЕРВЕР\\Process(Проводник)\\% Processor Time"));
  EXPECT_THAT(paths("\\процессы(*)\\*"), ::testing::IsEmpty());
}

// Real process names hold every character that path syntax uses: each expanded path must parse
// back and select exactly its own counter.
TEST(PathExpanderHostileNamesTest, EveryExpandedPathSelectsExactlyItself) {
  SnapshotBuilder builder;
  builder.set_system_name("h\\o*st");
  ObjectBuilder& process = builder.AddObject(230);
  process.AddCounter({.name_index = 784, .type = wp::kCounterRawcount});
  const char* names[] = {
      "chrome (1)", "a/b",   "foo#12",      "foo#bar", "x)y", "(z",     "star*",
      "back`tick",  "sp ce", "\\dev",       "",        "a/b", "foo#12", "caf\xC3\xA9",
      "Xorg",       "xorg",  "CAF\xC3\x89", "Ява",     "ЯВА", "\u212A", "k"};
  for (const char* name : names) process.AddInstance(name);
  ObjectBuilder& thread = builder.AddObject(232);
  thread.AddCounter({.name_index = 804, .type = wp::kCounterRawcount});
  for (uint32_t parent = 0; parent < std::size(names); ++parent) {
    thread.AddInstance("0", -1, 230, parent);
    thread.AddInstance("1/2#3", -1, 230, parent);
  }
  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> snapshot = SnapshotReader::Open(bytes);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  TitleDatabase titles = English();
  PathExpander expander(*snapshot, titles);
  std::vector<CounterMatch> all = expander.Expand(*ParseCounterPath("\\*(*)\\*"));
  ASSERT_EQ(all.size(), 3 * std::size(names));
  for (const CounterMatch& match : all) {
    Result<CounterPath> path = ParseCounterPath(match.path);
    ASSERT_TRUE(path.ok()) << path.error();
    std::vector<CounterMatch> again = expander.Expand(*path);
    ASSERT_EQ(again.size(), 1u) << match.path;
    EXPECT_EQ(again[0].path, match.path);
    EXPECT_EQ(again[0].instance.position(), match.instance.position()) << match.path;
  }
  EXPECT_EQ(all[0].path, "\\\\h`\\o`*st\\Process(chrome (1))\\ID Process");
  EXPECT_EQ(all[3].path, "\\\\h`\\o`*st\\Process(foo#bar)\\ID Process");
}

}  // namespace
}  // namespace perfhive
