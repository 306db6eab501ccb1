// End to end: a host whose display language is German (its real title databases, from the
// lodctr dump of a German Windows host in ../shared/fixtures/title-databases) is replayed with
// both databases, titles.bin and titles.007.bin, through the real agent; the real server then
// answers `perfhive query` for the same counters by their English and their German names.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "perfdata/lodctr_dump.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/support/answer_points.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::testing {
namespace {

using ::testing::ElementsAre;

// The valid values of every series the answer holds, each series' sorted.
std::vector<std::vector<double>> SeriesValues(const std::string& json) {
  std::vector<std::vector<double>> all;
  nlohmann::json answer = nlohmann::json::parse(json);
  for (const auto& series : answer["series"]) {
    all.push_back(ValidValues(series));
  }
  std::sort(all.begin(), all.end());
  return all;
}

TEST(LocalizedNamesEndToEndTest, AGermanHostAnswersToEnglishAndGermanNames) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE("title-databases");
  Result<LodctrDump> dump = ParseLodctrDump(ReadSharedFixture(TitleDumpFixture("apfeltee+tini")));
  ASSERT_TRUE(dump.ok()) << dump.error();
  ScratchDir scratch("localized");
  ServerProcess server(scratch);
  ASSERT_TRUE(server.Start());
  // Builder-made snapshots (Processor 0 25% busy, 1 50%) with English titles.bin, and the
  // German host's own "Counter" list beside it as its display language.
  ReplayDir dir = WriteReplayDir(scratch, "BERLIN", 4);
  std::vector<uint8_t> german = dump->languages.at("007").EncodeNames();
  std::ofstream(dir.path + "/titles.007.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(german.data()),
             static_cast<std::streamsize>(german.size()));
  CommandResult replayed =
      RunCommand(scratch,
                 {AgentBinary(), "run", "--server", server.address(), "--insecure", "--source",
                  "replay", "--replay", dir.path, "--host-name", "BERLIN", "--interval", "20ms",
                  "--timeout", "60s", "--spool-dir", scratch / "spool"},
                 std::chrono::seconds(90));
  ASSERT_EQ(replayed.exit_code, 0) << replayed.err;

  auto query = [&](const std::string& path) {
    CommandResult result = RunCommand(scratch, {CliBinary(), "query", path, "--format", "json",
                                                "--server", server.address(), "--insecure"});
    EXPECT_EQ(result.exit_code, 0) << path << ": " << result.err;
    return result.exit_code == 0 ? SeriesValues(result.out) : std::vector<std::vector<double>>();
  };
  // Four samples: three intervals of each processor, as built.
  std::vector<double> quarter(3, 25), half(3, 50);
  EXPECT_THAT(query("\\\\BERLIN\\Processor(*)\\% Processor Time"), ElementsAre(quarter, half));
  EXPECT_THAT(query("\\\\BERLIN\\Prozessor(*)\\Prozessorzeit (%)"), ElementsAre(quarter, half));
  server.Stop();
}

}  // namespace
}  // namespace perfhive::testing
