// `perfhive decode` run in-process on files written by the test.

#include "cli/decode_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/byte_order.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/title_database.h"
#include "perfdata/winperf.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace wp = winperf;

class DecodeCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("perfhive_decode_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::vector<uint8_t>& bytes) {
    std::filesystem::path path = dir_ / name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return path.string();
  }

  // Runs decode; returns the exit code, output in out_ and err_.
  static DecodeOptions Options(std::string snapshot, std::optional<std::string> titles,
                               DecodeOptions::Format format) {
    DecodeOptions options;
    options.snapshot_path = std::move(snapshot);
    options.titles_path = std::move(titles);
    options.format = format;
    return options;
  }

  int Run(DecodeOptions options) {
    out_.str("");
    err_.str("");
    return RunDecode(options, out_, err_);
  }

  std::filesystem::path dir_;
  std::ostringstream out_, err_;
};

std::vector<uint8_t> ProcessSnapshot() {
  SnapshotBuilder builder;
  builder.set_system_name("WINHOST")
      .set_perf_time(1000)
      .set_perf_freq(10'000'000)
      .set_perf_time_100ns(2000);
  ObjectBuilder& system = builder.AddObject(2);
  uint32_t processes = system.AddCounter({.name_index = 248, .type = wp::kCounterRawcount});
  system.set_no_instances();
  system.SetValue(0, processes, 123);
  ObjectBuilder& process = builder.AddObject(230);
  uint32_t cpu = process.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  uint32_t pid = process.AddCounter({.name_index = 784, .type = wp::kCounterRawcount});
  uint32_t explorer = process.AddInstance("explorer", 77);
  process.SetValue(explorer, cpu, 5'000'000'000);
  process.SetValue(explorer, pid, 4242);
  ObjectBuilder& thread = builder.AddObject(232);
  uint32_t thread_cpu = thread.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  uint32_t t0 = thread.AddInstance("0", -1, 230, explorer);
  thread.SetValue(t0, thread_cpu, 99);
  return builder.Build();
}

std::vector<uint8_t> Titles() {
  TitleDatabase titles;
  titles.AddName(2, "System");
  titles.AddName(230, "Process");
  titles.AddName(232, "Thread");
  titles.AddName(6, "% Processor Time");
  titles.AddName(784, "ID Process");
  return titles.EncodeNames();  // as "Counter 009" returns them
}

TEST_F(DecodeCommandTest, JsonHasTheDocumentedShape) {
  DecodeOptions options = Options(Write("s.bin", ProcessSnapshot()), Write("t.bin", Titles()),
                                  DecodeOptions::Format::kJson);
  ASSERT_EQ(Run(options), 0) << err_.str();
  nlohmann::json doc = nlohmann::json::parse(out_.str());
  EXPECT_EQ(doc["system"], "WINHOST");
  EXPECT_EQ(doc["perf_time"], 1000);
  EXPECT_EQ(doc["perf_freq"], 10'000'000);
  EXPECT_EQ(doc["perf_time_100ns"], 2000);
  ASSERT_EQ(doc["objects"].size(), 3u);

  const nlohmann::json& system = doc["objects"][0];
  EXPECT_EQ(system["index"], 2);
  EXPECT_EQ(system["name"], "System");
  ASSERT_EQ(system["instances"].size(), 1u);
  EXPECT_TRUE(system["instances"][0]["name"].is_null());
  const nlohmann::json& processes = system["instances"][0]["counters"][0];
  EXPECT_EQ(processes["index"], 248);
  EXPECT_TRUE(processes["name"].is_null());  // not in the title database
  EXPECT_EQ(processes["type"], "PERF_COUNTER_RAWCOUNT");
  EXPECT_EQ(processes["size"], 4);
  EXPECT_EQ(processes["raw"], 123);

  const nlohmann::json& explorer = doc["objects"][1]["instances"][0];
  EXPECT_EQ(explorer["name"], "explorer");
  EXPECT_TRUE(explorer["parent"].is_null());
  EXPECT_EQ(explorer["unique_id"], 77);
  EXPECT_EQ(explorer["counters"][0]["name"], "% Processor Time");
  EXPECT_EQ(explorer["counters"][0]["type"], "PERF_100NSEC_TIMER");
  EXPECT_EQ(explorer["counters"][0]["raw"], 5'000'000'000);
  EXPECT_EQ(explorer["counters"][1]["raw"], 4242);

  const nlohmann::json& thread = doc["objects"][2]["instances"][0];
  EXPECT_EQ(thread["name"], "0");
  EXPECT_EQ(thread["parent"], "explorer");
  EXPECT_EQ(thread["unique_id"], -1);
}

TEST_F(DecodeCommandTest, TableShowsNamesAndIndexesWhereNoNameExists) {
  DecodeOptions options = Options(Write("s.bin", ProcessSnapshot()), Write("t.bin", Titles()),
                                  DecodeOptions::Format::kTable);
  ASSERT_EQ(Run(options), 0) << err_.str();
  std::string table = out_.str();
  EXPECT_THAT(table, HasSubstr("System WINHOST"));
  EXPECT_THAT(table, HasSubstr("Process (object 230): 2 counters, 1 instances"));
  EXPECT_THAT(table, HasSubstr("System (object 2): 1 counters, no instances"));
  EXPECT_THAT(table, ::testing::ContainsRegex(
                         "explorer/0 +% Processor Time +6 +PERF_100NSEC_TIMER +8 +99"));
  EXPECT_THAT(table, ::testing::ContainsRegex("- +#248 +248 +PERF_COUNTER_RAWCOUNT +4 +123"));
}

TEST_F(DecodeCommandTest, WithoutTitlesNamesAreNull) {
  DecodeOptions options =
      Options(Write("s.bin", ProcessSnapshot()), std::nullopt, DecodeOptions::Format::kJson);
  ASSERT_EQ(Run(options), 0) << err_.str();
  nlohmann::json doc = nlohmann::json::parse(out_.str());
  EXPECT_TRUE(doc["objects"][1]["name"].is_null());
  EXPECT_EQ(doc["objects"][1]["index"], 230);
}

TEST_F(DecodeCommandTest, MalformedSnapshotPrintsTheReadersErrorAndFails) {
  std::vector<uint8_t> bytes = ProcessSnapshot();
  uint32_t first_object = LoadU32(&bytes[wp::data_block::kHeaderLength]);
  StoreU32(&bytes[first_object + wp::object_type::kDefinitionLength], 9000);
  DecodeOptions options =
      Options(Write("bad.bin", bytes), std::nullopt, DecodeOptions::Format::kJson);
  EXPECT_EQ(Run(options), 1);
  EXPECT_EQ(out_.str(), "");
  EXPECT_THAT(err_.str(), HasSubstr("bad.bin: object 0 at byte " + std::to_string(first_object) +
                                    ": DefinitionLength 9000 exceeds TotalByteLength"));
}

// Decoding into a full disk exited 0 without a word: the table was still in the buffer when the
// stream was checked. Proves: it fails and says why.
TEST_F(DecodeCommandTest, OutputThatCannotBeWrittenIsNamedAsTheReason) {
  DecodeOptions options = Options(Write("s.bin", ProcessSnapshot()), Write("t.bin", Titles()),
                                  DecodeOptions::Format::kTable);
  std::ofstream full("/dev/full");
  ASSERT_TRUE(full.is_open()) << "this test writes to /dev/full";
  err_.str("");
  EXPECT_EQ(RunDecode(options, full, err_), 1);
  EXPECT_THAT(err_.str(), HasSubstr("perfhive decode: the answer could not be written to standard "
                                    "output: No space left on device"));
}

TEST_F(DecodeCommandTest, MissingFileIsNamed) {
  DecodeOptions options;
  options.snapshot_path = (dir_ / "nope.bin").string();
  options.format = DecodeOptions::Format::kTable;
  EXPECT_EQ(Run(options), 1);
  EXPECT_THAT(err_.str(), HasSubstr("nope.bin: No such file or directory"));
}

TEST_F(DecodeCommandTest, TitlesFileThatIsNeitherFormFails) {
  DecodeOptions options =
      Options(Write("s.bin", ProcessSnapshot()), Write("t.bin", {0xFF, 0xFE, 0x01}),
              DecodeOptions::Format::kTable);
  EXPECT_EQ(Run(options), 1);
  EXPECT_THAT(err_.str(), HasSubstr("t.bin: "));
}

// Two samples one second apart: explorer used 0.5 s of CPU (50%); a new process appeared and
// the instance order changed.
std::vector<uint8_t> Sample(int n) {
  SnapshotBuilder builder;
  builder.set_system_name("WINHOST")
      .set_perf_time(1000 + 10'000'000 * n)
      .set_perf_freq(10'000'000)
      .set_perf_time_100ns(2000 + 10'000'000 * n);
  ObjectBuilder& process = builder.AddObject(230);
  uint32_t cpu = process.AddCounter({.name_index = 6, .type = wp::k100NsecTimer});
  uint32_t pid = process.AddCounter({.name_index = 784, .type = wp::kCounterRawcount});
  if (n == 1) {
    uint32_t fresh = process.AddInstance("notepad");
    process.SetValue(fresh, cpu, 100);
    process.SetValue(fresh, pid, 99);
  }
  uint32_t explorer = process.AddInstance("explorer");
  process.SetValue(explorer, cpu, 5'000'000'000 + 5'000'000 * n);
  process.SetValue(explorer, pid, 4242);
  return builder.Build();
}

TEST_F(DecodeCommandTest, NextSnapshotAddsValuesAndStatuses) {
  DecodeOptions options =
      Options(Write("a.bin", Sample(0)), Write("t.bin", Titles()), DecodeOptions::Format::kJson);
  options.next_path = Write("b.bin", Sample(1));
  ASSERT_EQ(Run(options), 0) << err_.str();
  nlohmann::json doc = nlohmann::json::parse(out_.str());
  const nlohmann::json& instances = doc["objects"][0]["instances"];
  ASSERT_EQ(instances.size(), 2u);
  EXPECT_EQ(instances[0]["name"], "notepad");
  // notepad has no earlier sample: a rate has no value yet; a raw count does.
  EXPECT_TRUE(instances[0]["counters"][0]["value"].is_null());
  EXPECT_EQ(instances[0]["counters"][0]["status"], "PDH_CSTATUS_INVALID_DATA");
  EXPECT_EQ(instances[0]["counters"][1]["value"], 99.0);
  EXPECT_EQ(instances[0]["counters"][1]["status"], "PDH_CSTATUS_VALID_DATA");
  // explorer: 5,000,000 of 10,000,000 100ns units → 50%.
  EXPECT_EQ(instances[1]["counters"][0]["value"], 50.0);
  EXPECT_EQ(instances[1]["counters"][0]["status"], "PDH_CSTATUS_VALID_DATA");
  EXPECT_EQ(instances[1]["counters"][0]["path"],
            "\\\\WINHOST\\Process(explorer)\\% Processor Time");
  EXPECT_EQ(instances[1]["counters"][0]["raw"], 5'005'000'000);

  options.format = DecodeOptions::Format::kTable;
  ASSERT_EQ(Run(options), 0) << err_.str();
  EXPECT_THAT(out_.str(), ::testing::ContainsRegex(
                              "explorer +% Processor Time +6 +PERF_100NSEC_TIMER +8 +5005000000 "
                              "+50.000 +PDH_CSTATUS_VALID_DATA"));
}

TEST_F(DecodeCommandTest, SamplesGivenNewestFirstAreRefusedPlainly) {
  DecodeOptions options =
      Options(Write("b.bin", Sample(1)), std::nullopt, DecodeOptions::Format::kTable);
  options.next_path = Write("a.bin", Sample(0));
  EXPECT_EQ(Run(options), 1);
  EXPECT_EQ(out_.str(), "");
  EXPECT_THAT(err_.str(), HasSubstr("a.bin is older than "));
  EXPECT_THAT(err_.str(), HasSubstr("give the older sample first"));
}

TEST_F(DecodeCommandTest, ScaleIsTheCallersFactor) {
  DecodeOptions options =
      Options(Write("a.bin", Sample(0)), Write("t.bin", Titles()), DecodeOptions::Format::kJson);
  options.next_path = Write("b.bin", Sample(1));
  options.scale_factor = -2;
  ASSERT_EQ(Run(options), 0) << err_.str();
  nlohmann::json doc = nlohmann::json::parse(out_.str());
  // explorer's 50% × 10^−2.
  EXPECT_EQ(doc["objects"][0]["instances"][1]["counters"][0]["value"], 0.5);
}

constexpr char kZenoss[] = "realdata/zenoss-windowsmonitor";

// The real captures of ../shared/fixtures/realdata (fixtures/README.md), when present.
class DecodeRealDataTest : public DecodeCommandTest {
 protected:
  void SetUp() override {
    DecodeCommandTest::SetUp();
    PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
  }
  static std::string File(const std::string& name) {
    return testing::SharedFixture(std::filesystem::path(kZenoss) / name).string();
  }
};

TEST_F(DecodeRealDataTest, ValuesAreRealQuantitiesAndDefaultScaleIsMetadata) {
  DecodeOptions options =
      Options(File("kinex01-0.perf"), File("kinex01.counters"), DecodeOptions::Format::kJson);
  options.next_path = File("kinex01-1.perf");
  options.paths = {"\\Processor(_Total)\\Interrupts/sec"};
  ASSERT_EQ(Run(options), 0) << err_.str();
  nlohmann::json doc = nlohmann::json::parse(out_.str());
  const nlohmann::json& processor = doc["objects"][0];
  EXPECT_EQ(processor["counters"][3]["name"], "Interrupts/sec");
  EXPECT_EQ(processor["counters"][3]["default_scale"], -2);
  const nlohmann::json& counter = processor["instances"][0]["counters"][0];
  EXPECT_EQ(counter["path"], "\\\\KINEX01\\Processor(_Total)\\Interrupts/sec");
  // 55 interrupts (917,563,019 → 917,563,074) in 331,631,046 ticks of 1.995 GHz: 330.86 per
  // second, not the 3.31 of DefaultScale −2.
  EXPECT_NEAR(counter["value"].get<double>(), 330.86468, 1e-5);
}

TEST_F(DecodeRealDataTest, TableRowHasTheScaledValueOfARealCounter) {
  DecodeOptions options =
      Options(File("kinex01-0.perf"), File("kinex01.counters"), DecodeOptions::Format::kTable);
  options.next_path = File("kinex01-1.perf");
  options.paths = {"\\Processor(_Total)\\Interrupts/sec"};
  options.scale_factor = 1;
  ASSERT_EQ(Run(options), 0) << err_.str();
  // 330.86468 interrupts per second (above) × 10^1, raw 917,563,074 of the newer sample.
  EXPECT_THAT(out_.str(),
              HasSubstr("\n  _Total    Interrupts/sec  148    PERF_COUNTER_COUNTER  4     "
                        "917563074  3308.647  PDH_CSTATUS_VALID_DATA\n"));
}

TEST_F(DecodeRealDataTest, WithoutTitlesPathsSelectAndNameByIndex) {
  DecodeOptions options =
      Options(File("kinex01-0.perf"), std::nullopt, DecodeOptions::Format::kJson);
  options.paths = {"\\238(0)\\6"};
  ASSERT_EQ(Run(options), 0) << err_.str();
  nlohmann::json doc = nlohmann::json::parse(out_.str());
  ASSERT_EQ(doc["objects"].size(), 1u);
  const nlohmann::json& counter = doc["objects"][0]["instances"][0]["counters"][0];
  EXPECT_EQ(counter["path"], "\\\\KINEX01\\238(0)\\6");
  EXPECT_TRUE(counter["name"].is_null());
  EXPECT_EQ(counter["raw"], 23962782656250u);  // the older sample's, realdata_test.cc
  EXPECT_FALSE(counter.contains("value"));
}

TEST_F(DecodeRealDataTest, Wrxxcrpisax01InFileOrderIsRefusedWithTheReason) {
  DecodeOptions options = Options(File("wrxxcrpisax01-0.perf"), File("wrxxcrpisax01.counters"),
                                  DecodeOptions::Format::kTable);
  options.next_path = File("wrxxcrpisax01-1.perf");
  EXPECT_EQ(Run(options), 1);
  // 269,686,667,214,321 − 269,652,927,032,444 ticks at 3.49129 GHz.
  EXPECT_THAT(err_.str(),
              HasSubstr("wrxxcrpisax01-1.perf is older than " + File("wrxxcrpisax01-0.perf") +
                        ": its PerfTime 269652927032444 is before 269686667214321 (9.664 s "
                        "earlier)"));
  std::swap(options.snapshot_path, *options.next_path);
  EXPECT_EQ(Run(options), 0) << err_.str();
  EXPECT_THAT(out_.str(), Not(HasSubstr("PDH_CALC_NEGATIVE")));
}

TEST_F(DecodeCommandTest, PathSelectsCountersWithWildcards) {
  DecodeOptions options = Options(Write("s.bin", ProcessSnapshot()), Write("t.bin", Titles()),
                                  DecodeOptions::Format::kJson);
  options.paths = {"\\Thread(*/*)\\% Processor Time", "\\Process(explorer)\\ID Process"};
  ASSERT_EQ(Run(options), 0) << err_.str();
  nlohmann::json doc = nlohmann::json::parse(out_.str());
  std::vector<std::string> paths;
  for (const auto& object : doc["objects"]) {
    for (const auto& instance : object["instances"]) {
      for (const auto& counter : instance["counters"]) paths.push_back(counter["path"]);
    }
  }
  EXPECT_THAT(paths, ::testing::ElementsAre("\\\\WINHOST\\Process(explorer)\\ID Process",
                                            "\\\\WINHOST\\Thread(explorer/0)\\% Processor Time"));
}

TEST_F(DecodeCommandTest, BadPathIsReportedWithACaret) {
  DecodeOptions options =
      Options(Write("s.bin", ProcessSnapshot()), std::nullopt, DecodeOptions::Format::kJson);
  options.paths = {"\\Process(explorer\\ID Process"};
  EXPECT_EQ(Run(options), 1);
  EXPECT_THAT(err_.str(), HasSubstr("bad counter path at column 9: '(' is never closed"));
  EXPECT_THAT(err_.str(), HasSubstr("\n          ^"));
}

// Issue 20, case 9: a host's snapshot and title database name its instances, objects and
// counters as the host likes. The table shows every such name escaped, one row per counter;
// JSON keeps them exact.
std::vector<uint8_t> HostileSnapshot() {
  SnapshotBuilder builder;
  builder.set_system_name("WEB\x1b[31m").set_perf_freq(10'000'000);
  ObjectBuilder& process = builder.AddObject(230);
  uint32_t pid = process.AddCounter({.name_index = 784, .type = wp::kCounterRawcount});
  uint32_t evil = process.AddInstance("evil\x1b]0;owned\x07\nname");
  process.SetValue(evil, pid, 4242);
  return builder.Build();
}

std::vector<uint8_t> HostileTitles() {
  TitleDatabase titles;
  titles.AddName(230, "Proc\x1b[2Jess");
  titles.AddName(784, "ID\u202EProcess");
  return titles.EncodeNames();
}

TEST_F(DecodeCommandTest, NamesWithControlsAreEscapedInTheTable) {
  DecodeOptions options = Options(Write("s.bin", HostileSnapshot()),
                                  Write("t.bin", HostileTitles()), DecodeOptions::Format::kTable);
  ASSERT_EQ(Run(options), 0) << err_.str();
  std::string table = out_.str();
  EXPECT_EQ(table.find_first_of("\x1b\x07\r"), std::string::npos) << table;
  EXPECT_THAT(table, HasSubstr("System WEB\\x1B[31m  "));
  EXPECT_THAT(table, HasSubstr("Proc\\x1B[2Jess (object 230): 1 counters, 1 instances"));
  EXPECT_THAT(table, ::testing::ContainsRegex(
                         "  evil\\\\x1B]0;owned\\\\x07\\\\nname +ID\\\\u\\{202E\\}Process +784 "));
  // The header line, a blank line, the object's heading, its table's header and one row.
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 5) << table;
}

TEST_F(DecodeCommandTest, NamesWithControlsAreExactInJson) {
  DecodeOptions options = Options(Write("s.bin", HostileSnapshot()),
                                  Write("t.bin", HostileTitles()), DecodeOptions::Format::kJson);
  ASSERT_EQ(Run(options), 0) << err_.str();
  EXPECT_EQ(out_.str().find_first_of("\x1b\x07\r"), std::string::npos) << out_.str();
  nlohmann::json doc = nlohmann::json::parse(out_.str());
  EXPECT_EQ(doc["system"], "WEB\x1b[31m");
  EXPECT_EQ(doc["objects"][0]["name"], "Proc\x1b[2Jess");
  EXPECT_EQ(doc["objects"][0]["instances"][0]["name"], "evil\x1b]0;owned\x07\nname");
  EXPECT_EQ(doc["objects"][0]["counters"][0]["name"], "ID\u202EProcess");
}

}  // namespace
}  // namespace perfhive::cli
