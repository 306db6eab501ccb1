// The agent's log lines: time, level and message, and bursts of one message summed up. A
// message is one line whatever the remote texts it quotes hold (issue 20, case 9).

#include "agent/logger.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/support/fake_clock_env.h"

namespace perfhive {
namespace {

using namespace std::chrono_literals;

class LoggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.set_system_origin(std::chrono::sys_days{std::chrono::year(2026) / 11 / 23} + 10h + 1s +
                           123ms);
  }

  testing::FakeClockEnv env_;
  std::ostringstream out_;
  Logger log_{out_, env_};
};

TEST_F(LoggerTest, LineHasTheUtcTimeWithMillisecondsAndTheLevel) {
  log_.Info("started");
  env_.Advance(2500ms);
  log_.Error("spool full");
  EXPECT_EQ(out_.str(),
            "2026-11-23T10:00:01.123Z INFO started\n"
            "2026-11-23T10:00:03.623Z ERROR spool full\n");
}

TEST_F(LoggerTest, RepeatsAreSummedUpWhenAnotherMessageComesOrAMinutePassed) {
  for (int i = 0; i < 3; ++i) log_.Warning("server down");
  log_.Info("server back");
  for (int i = 0; i < 2; ++i) log_.Warning("server down");
  env_.Advance(60s);
  log_.Warning("server down");  // the burst goes on, but a minute has passed since it began
  EXPECT_EQ(out_.str(),
            "2026-11-23T10:00:01.123Z WARNING server down\n"
            "2026-11-23T10:00:01.123Z WARNING (repeated 2 more times) server down\n"
            "2026-11-23T10:00:01.123Z INFO server back\n"
            "2026-11-23T10:00:01.123Z WARNING server down\n"
            "2026-11-23T10:01:01.123Z WARNING (repeated 2 more times) server down\n");
}

TEST_F(LoggerTest, AMessageQuotingRemoteTextIsOneEscapedLine) {
  log_.Error("\\\\web01: snapshot failed: evil\x1b[31m\r\n2026-11-23T10:00:01.123Z INFO forged");
  EXPECT_EQ(out_.str(),
            "2026-11-23T10:00:01.123Z ERROR \\\\web01: snapshot failed: evil\\x1B[31m\\r\\n"
            "2026-11-23T10:00:01.123Z INFO forged\n");
}

TEST_F(LoggerTest, RepeatsOfAnEscapedMessageAreSummedUp) {
  for (int i = 0; i < 3; ++i) log_.Warning("server says: bad\x1b[2J\xFF");
  log_.Info("server back");
  EXPECT_EQ(out_.str(),
            "2026-11-23T10:00:01.123Z WARNING server says: bad\\x1B[2J\\xFF\n"
            "2026-11-23T10:00:01.123Z WARNING (repeated 2 more times) server says: "
            "bad\\x1B[2J\\xFF\n"
            "2026-11-23T10:00:01.123Z INFO server back\n");
}

TEST_F(LoggerTest, AHugeMessageIsCutWithItsSizeNoted) {
  log_.Error("health: " + std::string(16 << 20, 'x'));
  std::string line = out_.str();
  EXPECT_LT(line.size(), Logger::kMaxMessageBytes + 100);
  EXPECT_TRUE(line.ends_with("xxx ... (16777224 bytes in all)\n")) << line.substr(0, 100);
}

}  // namespace
}  // namespace perfhive
