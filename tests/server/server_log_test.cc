// The server's log: one line per event whatever its values hold (issue 20, case 9: a host name
// with a newline forged a line, one with an escape sequence recoloured the administrator's
// terminal), values escaped and cut, and key=value pairs that still split unambiguously.

#include "server/log/server_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace perfhive {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// A ServerLog over a temporary file, and what it wrote.
class ServerLogTest : public ::testing::Test {
 protected:
  ~ServerLogTest() override { std::fclose(file_); }

  std::string Written() {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    char buffer[4096];
    for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file_)) > 0;) text.append(buffer, n);
    return text;
  }

  std::FILE* file_ = std::tmpfile();
  ServerLog log_{std::chrono::seconds(10), file_};
};

TEST_F(ServerLogTest, PlainValuesAreWrittenAsTheyAre) {
  log_.Info("hello", {{"host", "web01"}, {"peer", "ipv4:127.0.0.1:5000"}});
  EXPECT_THAT(Written(), MatchesRegex("[0-9-]+T[0-9:.]+Z level=info event=hello host=web01 "
                                      "peer=ipv4:127.0.0.1:5000\n"));
}

TEST_F(ServerLogTest, AValueWithANewlineIsOneEscapedLine) {
  log_.Info("hello", {{"host", "evil\nlevel=error event=forged"}, {"instance", "run-1"}});
  std::string text = Written();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_THAT(text, EndsWith(" host=\"evil\\\\nlevel=error event=forged\" instance=run-1\n"));
}

TEST_F(ServerLogTest, ControlsAndBytesThatAreNotUtf8AreEscaped) {
  log_.Warn("refused", {{"host", "web01\x1b[31mRED"},
                        {"version", "1.0\r"},
                        {"message", std::string("nul\0 and \xFF", 10)}});
  std::string text = Written();
  EXPECT_EQ(text.find_first_of(std::string("\x1b\r\0\xFF", 4)), std::string::npos) << text;
  EXPECT_THAT(text, HasSubstr(" host=web01\\x1B[31mRED version=1.0\\r "));
  EXPECT_THAT(text, HasSubstr(" message=\"nul\\\\x00 and \\\\xFF\"\n"));
}

TEST_F(ServerLogTest, QuotesEqualsAndEmptyValuesAreQuoted) {
  log_.Error("store_error", {{"message", "no host named \"a=b\""}, {"host", ""}});
  EXPECT_THAT(Written(), EndsWith(" message=\"no host named \\\"a=b\\\"\" host=\"\"\n"));
}

TEST_F(ServerLogTest, AHugeValueIsCutWithItsSizeNoted) {
  log_.Info("hello", {{"agent_version", std::string(8 << 20, 'a')}});
  std::string text = Written();
  EXPECT_LT(text.size(), ServerLog::kMaxValueBytes + 200);
  EXPECT_THAT(text, HasSubstr(" ... (8388608 bytes in all)\"\n"));
}

// Issue 34: the once-per-burst map was keyed by a client's address and port and never pruned, so
// every connection that failed to authenticate left an entry for the server's lifetime.
TEST(ServerLogBurstTest, KeysWhoseWindowEndedAreForgottenAndNewOnesShareABurstPastTheLimit) {
  std::FILE* file = std::tmpfile();
  {
    ServerLog ended(std::chrono::seconds(0), file);  // every window has ended at once
    for (int i = 0; i < 3000; ++i) {
      ended.WarnOncePerBurst("unauthenticated", "ipv4:10.0.0.1:" + std::to_string(i), {});
    }
    EXPECT_LE(ended.burst_keys(), ServerLog::kMaxBurstKeys);
  }
  ServerLog in_window(std::chrono::seconds(3600), file);  // no window ends during the test
  for (int i = 0; i < 3000; ++i) {
    in_window.WarnOncePerBurst("unauthenticated", "ipv4:10.0.0.2:" + std::to_string(i), {});
  }
  EXPECT_EQ(in_window.burst_keys(), ServerLog::kMaxBurstKeys + 1);
  std::fflush(file);
  std::rewind(file);
  int lines = 0;
  for (int c; (c = std::fgetc(file)) != EOF;) lines += c == '\n';
  // 3,000 from the first log, whose windows all ended; 1,024 keys and one shared burst after.
  EXPECT_EQ(lines, 3000 + static_cast<int>(ServerLog::kMaxBurstKeys) + 1);
  std::fclose(file);
}

}  // namespace
}  // namespace perfhive
