#include "agent/rotating_log_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <ostream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "tests/agent/agent_test_util.h"

namespace perfhive {
namespace {

using testing::TempDir;

std::string Contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool Exists(const std::string& path) { return std::ifstream(path).good(); }

// "line NN ..." padded to 19 bytes; 19 + kLineEnd in the file.
std::string Line(int n) {
  std::string line = "line " + std::string(n < 10 ? "0" : "") + std::to_string(n) + " ";
  line.resize(19, '.');
  return line;
}

// Lines as the file holds them.
std::string InFile(int first, int end) {
  std::string text;
  for (int n = first; n < end; ++n) text += Line(n) + std::string(RotatingLogFile::kLineEnd);
  return text;
}

constexpr uint64_t kFiveLines = 5 * (19 + RotatingLogFile::kLineEnd.size());

// Proves: past max_bytes the log moves along agent.log -> agent.1.log -> agent.2.log; the oldest
// beyond `keep` is dropped; no file is bigger than the limit; the newest lines are all there, in
// order.
TEST(RotatingLogFileTest, RotatesAtItsLimitKeepingTheNewestFiles) {
  TempDir dir;
  std::string path = dir / "agent.log";
  {
    RotatingLogFile file({.path = path, .max_bytes = kFiveLines, .keep = 2});
    ASSERT_TRUE(file.is_open());
    std::ostream out(&file);
    for (int n = 0; n < 17; ++n) out << Line(n) << "\n";
  }
  // Five lines fill a file: 15-16 in agent.log, 10-14 and 5-9 before; 0-4 dropped.
  EXPECT_EQ(Contents(path), InFile(15, 17));
  EXPECT_EQ(Contents(dir / "agent.1.log"), InFile(10, 15));
  EXPECT_EQ(Contents(dir / "agent.2.log"), InFile(5, 10));
  EXPECT_FALSE(Exists(dir / "agent.3.log"));
  EXPECT_FALSE(Exists(dir / "agent.log.rotating"));
}

// Proves: a new writer appends to the log a previous one left, counting what is there, so a
// service that restarts often still rotates at the limit.
TEST(RotatingLogFileTest, AppendsToTheLogAlreadyThereAndCountsIt) {
  TempDir dir;
  std::string path = dir / "agent.log";
  std::ofstream(path, std::ios::binary) << InFile(0, 4);
  {
    RotatingLogFile file({.path = path, .max_bytes = kFiveLines, .keep = 1});
    std::ostream out(&file);
    out << Line(4) << "\n";  // five lines: still fits
    out << Line(5) << "\n";  // six would not: rotates first
  }
  EXPECT_EQ(Contents(dir / "agent.1.log"), InFile(0, 5));
  EXPECT_EQ(Contents(path), InFile(5, 6));
}

// Proves: lines written piece by piece from several threads at once reach the file whole, each
// thread's pieces in order.
TEST(RotatingLogFileTest, LinesFromSeveralThreadsStayWhole) {
  TempDir dir;
  std::string path = dir / "agent.log";
  constexpr int kThreads = 4;
  constexpr int kLines = 300;
  {
    RotatingLogFile file({.path = path});
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&file, t] {
        std::ostream out(&file);
        for (int n = 0; n < kLines; ++n) out << "thread " << t << " line " << n << " end\n";
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  std::istringstream lines(Contents(path));
  std::vector<int> next(kThreads, 0);
  const std::regex whole(R"(thread (\d) line (\d+) end)");
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    if (line.ends_with('\r')) line.pop_back();  // Windows' line end
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, whole)) << line;
    int t = std::stoi(match[1]);
    EXPECT_EQ(std::stoi(match[2]), next[t]++) << line;
  }
  EXPECT_EQ(count, kThreads * kLines);
}

TEST(RotatingLogFileTest, OlderFilesKeepTheExtensionLast) {
  EXPECT_EQ(RotatingLogFile::OlderFile("C:\\ProgramData\\perfhive\\agent.log", 3),
            "C:\\ProgramData\\perfhive\\agent.3.log");
  EXPECT_EQ(RotatingLogFile::OlderFile("/var/log/v1.2/agent", 1), "/var/log/v1.2/agent.1");
  EXPECT_EQ(RotatingLogFile::OlderFile("/var/log/.agent", 1), "/var/log/.agent.1");
}

}  // namespace
}  // namespace perfhive
