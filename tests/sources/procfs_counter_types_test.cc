// The counter types of the Linux source's PhysicalDisk, Processor and Network Interface are
// those a real Windows Server 2019 writes, as the Checkmk agent printed them
// (../shared/fixtures/checkmk): for each counter index both have, the same types in the same
// order (a counter and then its base, which carries the same index).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "perfdata/counter_type.h"
#include "sources/procfs/procfs_source.h"
#include "tests/sources/procfs_test_util.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

// Checkmk's type names are winperf.h's without PERF_ (and without COUNTER_ for some).
uint32_t CheckmkType(const std::string& name) {
  if (name.starts_with("type(")) return static_cast<uint32_t>(std::stoul(name.substr(5)));
  std::string upper;
  for (char c : name) upper.push_back(static_cast<char>(std::toupper(c)));
  for (std::string prefix : {"PERF_", "PERF_COUNTER_"}) {
    if (std::optional<uint32_t> type = CounterTypeFromName(prefix + upper)) return *type;
  }
  ADD_FAILURE() << "unknown Checkmk type " << name;
  return 0;
}

// Object index → counter index → its types in the order printed.
using FixtureTypes = std::map<uint32_t, std::map<uint32_t, std::vector<uint32_t>>>;

FixtureTypes ReadFixture(const std::filesystem::path& path) {
  FixtureTypes types;
  std::ifstream in(path);
  std::string line;
  uint32_t object = 0;
  bool counters = false;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    if (line.starts_with("<<<winperf_")) {
      std::getline(in, line);  // "<time> <object> <freq>"
      std::istringstream header(line);
      double time = 0;
      header >> time >> object;
      counters = true;
      continue;
    }
    if (line.starts_with("<<<")) counters = false;
    if (!counters || line.find("instances:") != std::string::npos) continue;
    std::vector<std::string> words;
    for (std::string word; fields >> word;) words.push_back(word);
    if (words.size() < 2) continue;
    uint32_t counter = static_cast<uint32_t>(static_cast<int64_t>(object) + std::stol(words[0]));
    types[object][counter].push_back(CheckmkType(words.back()));
  }
  return types;
}

TEST(CounterTypesTest, MatchARealWindowsServer) {
  const char kExcerpt[] = "checkmk/windows-2.3.0p10.winperf_excerpt.txt";
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kExcerpt);
  FixtureTypes windows = ReadFixture(testing::SharedFixture(kExcerpt));
  Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
  ASSERT_TRUE(source.ok()) << source.error();
  testing::TakenSnapshot taken(**source, "234 238 510");

  // How many of our counters each object must share with the fixture: all of PhysicalDisk's
  // 30 (the fixture also has Split IO/Sec, which Linux does not count), Processor's 7 and
  // Network Interface's 13.
  const std::map<uint32_t, size_t> kShared = {{234, 30}, {238, 7}, {510, 13}};
  for (auto [object_index, expected_shared] : kShared) {
    SCOPED_TRACE(object_index);
    std::optional<ObjectView> object = taken.reader().FindObject(object_index);
    ASSERT_TRUE(object.has_value());
    std::map<uint32_t, std::vector<uint32_t>> ours;
    for (CounterDefinitionView counter : object->counters()) {
      ours[counter.name_index()].push_back(counter.type());
    }
    size_t shared = 0;
    for (const auto& [counter, types] : ours) {
      auto theirs = windows[object_index].find(counter);
      if (theirs == windows[object_index].end()) continue;
      EXPECT_EQ(types, theirs->second) << "counter " << counter;
      shared += types.size();
    }
    EXPECT_EQ(shared, expected_shared);
  }
}

}  // namespace
}  // namespace perfhive
