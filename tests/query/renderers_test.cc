// The renderers over answers made from builder hosts: typeperf's CSV, the JSON shape, the table.

#include "query/renderers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "query/held_condition.h"
#include "query/series_query.h"
#include "tests/query/query_test_hosts.h"

namespace perfhive::query {
namespace {

using namespace testing;  // NOLINT: the test hosts
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Two processes over three seconds: "sql" (pid 7) busy 10% then 30%, and "web" (pid 9), which
// starts at second 1 and is busy 100% in its one interval.
QueryAnswer Answer(bool statistics) {
  const std::vector<std::vector<TestProcess>> processes = {
      {{"sql", 7, 1, 0}},
      {{"sql", 7, 1, 1'000'000}, {"web", 9, 5, 0}},
      {{"sql", 7, 1, 4'000'000}, {"web", 9, 5, 10'000'000}},
  };
  HostSamples host{"db\"01", {}};
  for (int s = 0; s < 3; ++s) {
    SnapshotBuilder builder = HostAt(s);
    AddProcesses(builder, s, processes[s]);
    host.samples.push_back(SampleOf(builder, s, EnglishTitles()));
  }
  QueryOptions options;
  options.statistics = statistics;
  std::vector<CounterPath> paths = {*ParseCounterPath("\\Process(*)\\% Processor Time")};
  return *RunQuery(host, paths, options);
}

// RFC 4180 fields of every line (quoted fields only, as typeperf writes them).
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(std::move(field));
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.back().push_back(std::move(field));
      field.clear();
      rows.emplace_back();
      ++i;
    } else {
      ADD_FAILURE() << "unquoted character '" << c << "' at " << i;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

TEST(RenderersTest, CsvIsTypeperfsLayout) {
  std::ostringstream out;
  RenderCsv(Answer(false), out);
  std::vector<std::vector<std::string>> rows = ParseCsv(out.str());
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_THAT(rows[0], ElementsAre("(PDH-CSV 4.0) (Coordinated Universal Time)(0)",
                                   "\\\\db\"01\\Process(sql)\\% Processor Time",
                                   "\\\\db\"01\\Process(web)\\% Processor Time"));
  EXPECT_THAT(rows[1], ElementsAre("11/22/2026 10:00:00.000", " ", " "));
  EXPECT_THAT(rows[2], ElementsAre("11/22/2026 10:00:01.000", "10.000000", " "));
  EXPECT_THAT(rows[3], ElementsAre("11/22/2026 10:00:02.000", "30.000000", "100.000000"));
  EXPECT_THAT(out.str(), ::testing::StartsWith("\"(PDH-CSV 4.0) (Coordinated Universal "
                                               "Time)(0)\",\"\\\\db\"\"01\\"));
}

TEST(RenderersTest, JsonHasTheDocumentedShape) {
  std::ostringstream out;
  RenderJson(Answer(true), {.raw = true}, out);
  nlohmann::json doc = nlohmann::json::parse(out.str());
  ASSERT_EQ(doc["series"].size(), 2u);
  const nlohmann::json& sql = doc["series"][0];
  EXPECT_EQ(sql["path"], "\\\\db\"01\\Process(sql)\\% Processor Time");
  EXPECT_EQ(sql["host"], "db\"01");
  EXPECT_EQ(sql["object"], "Process");
  EXPECT_EQ(sql["instance"], "sql");
  EXPECT_EQ(sql["counter"], "% Processor Time");
  EXPECT_EQ(sql["pid"], 7);
  EXPECT_EQ(sql["type"], "PERF_100NSEC_TIMER");
  EXPECT_EQ(sql["unit"], "%");
  // The points as columns, times in Unix milliseconds.
  const int64_t first_ms = 1'795'341'600'000;  // 2026-11-22T10:00:00Z
  EXPECT_EQ(sql["times"], nlohmann::json({first_ms, first_ms + 1000, first_ms + 2000}));
  EXPECT_EQ(sql["values"], nlohmann::json({nullptr, 10.0, 30.0}));
  EXPECT_EQ(sql["statuses"], nlohmann::json({0xC0000BBAu, 0u, 0u}));  // INVALID_DATA, VALID_DATA
  EXPECT_EQ(sql["last_status"], "PDH_CSTATUS_VALID_DATA");
  EXPECT_EQ(sql["raw"][2], 4'000'000);
  EXPECT_FALSE(sql.contains("point_paths"));  // every point at the series' path
  EXPECT_EQ(sql["statistics"]["count"], 2);
  EXPECT_DOUBLE_EQ(sql["statistics"]["max"].get<double>(), 30);
  EXPECT_DOUBLE_EQ(sql["statistics"]["mean"].get<double>(), 20);  // 4M in 2 s
  EXPECT_DOUBLE_EQ(sql["statistics"]["p50"].get<double>(), 10);
  EXPECT_EQ(doc["warnings"], nlohmann::json::array());
}

// Strings are written in runs between the characters that need escaping: each kind of character
// at the start, inside and at the end of a run, read back by a JSON parser.
TEST(RenderersTest, JsonStringsKeepTheirTextAndEscapeWhatActsOnATerminal) {
  const std::string bidi_override = "\xE2\x80\xAE";  // U+202E, unsafe to display
  const std::string tag_one = "\xF3\xA0\x80\x81";    // U+E0001, unsafe, outside the BMP
  QueryAnswer answer;
  answer.warnings = {
      "plain ASCII only",
      "\"quoted\" back\\slash\ttab\r\nnew line",
      "\x1b[31mred" + bidi_override + "text" + tag_one,
      "caf\xC3\xA9 \xE4\xB8\xAD bad \xFF byte",
      "",
  };
  std::ostringstream out;
  RenderJson(answer, {}, out);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("\\u001b[31mred\\u202etext\\udb40\\udc01"));
  nlohmann::json doc = nlohmann::json::parse(text);
  ASSERT_EQ(doc["warnings"].size(), 5u);
  EXPECT_EQ(doc["warnings"][0], "plain ASCII only");
  EXPECT_EQ(doc["warnings"][1], "\"quoted\" back\\slash\ttab\r\nnew line");
  EXPECT_EQ(doc["warnings"][2], "\x1b[31mred" + bidi_override + "text" + tag_one);
  EXPECT_EQ(doc["warnings"][3], "caf\xC3\xA9 \xE4\xB8\xAD bad \xEF\xBF\xBD byte");
  EXPECT_EQ(doc["warnings"][4], "");
}

TEST(RenderersTest, TableAlignsColumnsWithUnitsAndCutsLongPaths) {
  std::ostringstream out;
  RenderTable(Answer(false), {}, out);
  std::string table = out.str();
  EXPECT_THAT(table, ::testing::ContainsRegex(
                         "2026-11-22T10:00:01Z +\\\\\\\\db\"01\\\\Process\\(sql\\)\\\\% Processor "
                         "Time +7 +10.000 +%"));
  EXPECT_THAT(table, HasSubstr("PDH_CSTATUS_INVALID_DATA"));
  std::ostringstream narrow;
  // The other columns take 68 characters (the status 24): the path keeps 32.
  RenderTable(Answer(false), {.width = 100}, narrow);
  EXPECT_THAT(narrow.str(), HasSubstr("  ...Process(sql)\\% Processor Time  "));
}

TEST(RenderersTest, TableWithStatisticsHasOneRowPerSeries) {
  std::ostringstream out;
  RenderTable(Answer(true), {}, out);
  EXPECT_THAT(out.str(), ::testing::ContainsRegex("PATH +PID +COUNT +MIN +MAX +MEAN"));
  EXPECT_THAT(out.str(), ::testing::ContainsRegex(
                             "Process\\(web\\)\\\\% Processor Time +9 +1 +100.000 +100.000"));
}

TEST(RenderersTest, AConditionsIntervalsAreRowsOfTheTableAndAListInTheJson) {
  QueryAnswer answer = Answer(false);
  KeepSeriesThatHeld(*ParseHeldCondition("> 20 for 1s"), std::nullopt, answer);
  // sql: 10% then 30% (from second 1 to 2: one second); web: 100% from 1 to 2.
  ASSERT_EQ(answer.series.size(), 2u);
  std::ostringstream table;
  RenderTable(answer, {}, table);
  EXPECT_THAT(table.str(),
              ::testing::ContainsRegex("PATH +PID +FROM +TO +HELD +EXTREME +UNIT +NOW"));
  EXPECT_THAT(table.str(), ::testing::ContainsRegex(
                               "Process\\(sql\\)\\\\% Processor Time +7 +"
                               "2026-[0-9T:-]+01Z +2026-[0-9T:-]+02Z +1s +30.000 +% +holds"));
  std::ostringstream json;
  RenderJson(answer, {}, json);
  nlohmann::json doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["held_checked"], 2);
  const nlohmann::json& held = doc["series"][0]["held"];
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(held[0]["from_ms"], (kStartNs + kSecondNs) / 1'000'000);
  EXPECT_EQ(held[0]["to_ms"], (kStartNs + 2 * kSecondNs) / 1'000'000);
  EXPECT_EQ(held[0]["ongoing"], true);
  EXPECT_EQ(held[0]["extreme"], 30.0);
}

}  // namespace
}  // namespace perfhive::query
