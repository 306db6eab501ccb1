// The console's server-side sessions (issue 34, 9): a cookie holds an opaque ID, never the token;
// a session ends at logout, when idle, when old, and makes room beyond its limit.

#include "server/http/console_sessions.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>

namespace perfhive {
namespace {

using SessionClock = ConsoleSessions::Clock;
constexpr char kSessionToken[] = "reader-secret-0123456789";

std::string OpenOrFail(ConsoleSessions& sessions, const std::string& token,
                       SessionClock::time_point now) {
  Result<std::string> id = sessions.Open(token, now);
  EXPECT_TRUE(id.ok()) << id.status().message();
  return id.ok() ? *id : "";
}

TEST(ConsoleSessionsTest, EachLoginGetsItsOwnOpaqueIdThatGivesBackItsToken) {
  ConsoleSessions sessions;
  SessionClock::time_point now = SessionClock::now();
  std::string first = OpenOrFail(sessions, kSessionToken, now);
  std::string second = OpenOrFail(sessions, kSessionToken, now);
  EXPECT_NE(first, second);
  for (const std::string& id : {first, second}) {
    EXPECT_EQ(id.size(), 64u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    EXPECT_EQ(sessions.Token(id, now), kSessionToken);
  }
  // An id one digit off is no session. (The test once forged "00" + the rest, which is the id
  // itself when it starts with "00": one run in 256 failed.)
  std::string forged = first;
  forged[0] = forged[0] == '0' ? '1' : '0';
  EXPECT_EQ(sessions.Token(forged, now), std::nullopt);
  EXPECT_EQ(sessions.Token("", now), std::nullopt);
  EXPECT_EQ(sessions.size(), 2u);
}

// Regression (issue 34, 9): the cookie was the token itself, so logging out did not end a
// copied cookie.
TEST(ConsoleSessionsTest, ALoggedOutSessionIsGoneForEveryCopyOfItsCookie) {
  ConsoleSessions sessions;
  SessionClock::time_point now = SessionClock::now();
  std::string id = OpenOrFail(sessions, kSessionToken, now);
  std::string kept = OpenOrFail(sessions, kSessionToken, now);
  sessions.Close(id);
  EXPECT_EQ(sessions.Token(id, now), std::nullopt);
  EXPECT_EQ(sessions.Token(kept, now), kSessionToken);
  sessions.Close(id);  // again: nothing
  EXPECT_EQ(sessions.size(), 1u);
}

TEST(ConsoleSessionsTest, ASessionEndsWhenUnusedForTheIdleTimeAndAtItsLifetimeEvenInUse) {
  ConsoleSessions sessions;
  SessionClock::time_point login = SessionClock::now();
  std::string idle = OpenOrFail(sessions, kSessionToken, login);
  std::string busy = OpenOrFail(sessions, kSessionToken, login);
  SessionClock::time_point at = login;
  // `busy` is used every hour for the whole week; `idle` never again.
  while (at + std::chrono::hours(1) < login + ConsoleSessions::kLifetime) {
    at += std::chrono::hours(1);
    ASSERT_EQ(sessions.Token(busy, at), kSessionToken)
        << "after " << std::chrono::duration_cast<std::chrono::hours>(at - login).count() << " h";
  }
  EXPECT_EQ(sessions.Token(idle, login + ConsoleSessions::kIdle), std::nullopt);
  EXPECT_EQ(sessions.Token(busy, login + ConsoleSessions::kLifetime), std::nullopt);
  EXPECT_EQ(sessions.size(), 0u);

  std::string fresh = OpenOrFail(sessions, kSessionToken, login);
  EXPECT_EQ(sessions.Token(fresh, login + ConsoleSessions::kIdle - std::chrono::seconds(1)),
            kSessionToken);
}

TEST(ConsoleSessionsTest, BeyondItsLimitTheSessionUnusedLongestMakesRoom) {
  ConsoleSessions sessions;
  SessionClock::time_point now = SessionClock::now();
  std::string first = OpenOrFail(sessions, kSessionToken, now);
  std::string second = OpenOrFail(sessions, kSessionToken, now + std::chrono::seconds(1));
  for (size_t i = 2; i < ConsoleSessions::kMaxSessions; ++i) {
    OpenOrFail(sessions, kSessionToken, now + std::chrono::seconds(2));
  }
  ASSERT_EQ(sessions.size(), ConsoleSessions::kMaxSessions);
  // The first is used again: the second is now the one unused longest.
  ASSERT_EQ(sessions.Token(first, now + std::chrono::seconds(3)), kSessionToken);
  std::string newest = OpenOrFail(sessions, kSessionToken, now + std::chrono::seconds(4));
  EXPECT_EQ(sessions.size(), ConsoleSessions::kMaxSessions);
  EXPECT_EQ(sessions.Token(second, now + std::chrono::seconds(4)), std::nullopt);
  EXPECT_EQ(sessions.Token(first, now + std::chrono::seconds(4)), kSessionToken);
  EXPECT_EQ(sessions.Token(newest, now + std::chrono::seconds(4)), kSessionToken);
}

}  // namespace
}  // namespace perfhive
