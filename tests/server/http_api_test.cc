// The console API's parameters and its session cookie, without a server: what each parameter
// accepts, and that every refusal names the parameter and how to write it.

#include "server/api/http_api.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/http/console_server.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kNow = 1'795'705'200'000'000'000;  // 2026-11-26T15:00:00Z
constexpr int64_t kNanosPerSecond = 1'000'000'000;

HttpRequest WithParams(std::initializer_list<std::pair<std::string, std::string>> params) {
  HttpRequest request;
  request.method = "GET";
  request.path = "/api/v1/read";
  for (const auto& [name, value] : params) request.params.emplace(name, value);
  return request;
}

TEST(ApiTimeTest, MillisecondsRfc3339NowAndSpansBack) {
  EXPECT_EQ(ParseApiTime("1795705200000", kNow).value(), kNow);
  EXPECT_EQ(ParseApiTime("1795705200123", kNow).value(), kNow + 123'000'000);
  EXPECT_EQ(ParseApiTime("2026-11-26T15:00:00Z", kNow).value(), kNow);
  EXPECT_EQ(ParseApiTime("now", kNow).value(), kNow);
  EXPECT_EQ(ParseApiTime("-5m", kNow).value(), kNow - 300 * kNanosPerSecond);
  EXPECT_EQ(ParseApiTime("-24h", kNow).value(), kNow - 86'400 * kNanosPerSecond);
}

TEST(ApiTimeTest, AnythingElseSaysWhatItTakes) {
  Result<int64_t> word = ParseApiTime("yesterday", kNow);
  ASSERT_FALSE(word.ok());
  EXPECT_THAT(word.error(), HasSubstr("Unix milliseconds, RFC 3339"));
  EXPECT_FALSE(ParseApiTime("99999999999999999999", kNow).ok());  // beyond int64_t
  EXPECT_FALSE(ParseApiTime("9223372036854775807", kNow).ok());   // ms beyond int64_t ns
  EXPECT_FALSE(ParseApiTime("-5 minutes", kNow).ok());
  EXPECT_FALSE(ParseApiTime("", kNow).ok());
}

// Found by http_api_fuzzer: "2426-11-26T15:00:00Z" overflowed int64_t nanoseconds in
// ParseRfc3339 (undefined behaviour) rather than being refused.
TEST(ApiTimeTest, TimesBeyondWhatNanosecondsHoldAreRefused) {
  Result<int64_t> far = ParseApiTime("2426-11-26T15:00:00Z", kNow);
  ASSERT_FALSE(far.ok());
  EXPECT_THAT(far.error(), HasSubstr("out of range"));
  EXPECT_FALSE(ParseApiTime("0000-01-01T00:00:00Z", kNow).ok());
  EXPECT_FALSE(ParseApiTime("1600-01-01T00:00:00+01:00", kNow).ok());
  EXPECT_TRUE(ParseApiTime("2261-12-31T23:59:59Z", kNow).ok());
  EXPECT_TRUE(ParseApiTime("1678-01-01T00:00:00Z", kNow).ok());
}

TEST(ReadParamsTest, EveryParameterReachesTheRequest) {
  Result<query::ReadRequest> read =
      ReadRequestFromParams(WithParams({{"path", "\\\\*\\Processor(*)\\% Processor Time"},
                                        {"path", "\\Memory\\Available Bytes"},
                                        {"from", "-1h"},
                                        {"to", "now"},
                                        {"step", "10s"},
                                        {"statistics", "1"},
                                        {"latest", ""},
                                        {"scale", "-2"},
                                        {"cap100", "true"},
                                        {"max_points", "5000"}}),
                            kNow);
  ASSERT_TRUE(read.ok()) << read.error();
  ASSERT_EQ(read->paths.size(), 2u);
  EXPECT_EQ(read->paths[1], "\\Memory\\Available Bytes");
  EXPECT_EQ(read->from_ns, kNow - 3600 * kNanosPerSecond);
  EXPECT_EQ(read->to_ns, kNow);
  EXPECT_EQ(read->step_ns, 10 * kNanosPerSecond);
  EXPECT_TRUE(read->statistics);
  EXPECT_TRUE(read->latest_only);
  EXPECT_EQ(read->format.scale_factor, -2);
  EXPECT_TRUE(read->format.cap_100);
  EXPECT_EQ(read->max_points, 5000u);
}

TEST(ReadParamsTest, MistakesNameTheParameter) {
  EXPECT_THAT(ReadRequestFromParams(WithParams({}), kNow).error(), HasSubstr("path: "));
  auto refusal = [](std::string name, std::string value) {
    Result<query::ReadRequest> read =
        ReadRequestFromParams(WithParams({{"path", "\\Memory\\*"}, {name, value}}), kNow);
    return read.ok() ? std::string("accepted") : read.error();
  };
  EXPECT_THAT(refusal("from", "tomorrow"), HasSubstr("from: "));
  EXPECT_THAT(refusal("to", "0"), HasSubstr("to: before 1970"));
  EXPECT_THAT(refusal("step", "often"), HasSubstr("step: "));
  EXPECT_THAT(refusal("scale", "9"), HasSubstr("scale: from -7 to 7"));
  EXPECT_THAT(refusal("scale", "2x"), HasSubstr("expected a whole number"));
  EXPECT_THAT(refusal("latest", "maybe"), HasSubstr("latest=maybe: expected 1 or 0"));
  EXPECT_THAT(refusal("max_points", "-1"), HasSubstr("max_points=-1"));
}

TEST(HttpStatusTest, CodesMapToWhatAClientActsOn) {
  EXPECT_EQ(HttpStatusOf(Status::InvalidArgument("x")), 400);
  EXPECT_EQ(HttpStatusOf(Status(StatusCode::kUnauthenticated, "x")), 401);
  EXPECT_EQ(HttpStatusOf(Status::PermissionDenied("x")), 403);
  EXPECT_EQ(HttpStatusOf(Status::NotFound("x")), 404);
  EXPECT_EQ(HttpStatusOf(Status::ResourceExhausted("x")), 413);
  EXPECT_EQ(HttpStatusOf(Status::Unavailable("x")), 503);
  EXPECT_EQ(HttpStatusOf(Status::DataLoss("x")), 500);
  HttpReply reply = JsonError(Status::InvalidArgument("bad \"path\"").WithColumn(7));
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(reply.body,
            R"({"error":{"code":"INVALID_ARGUMENT","column":7,"message":"bad \"path\""}})");
}

TEST(SessionCookieTest, FindsItsCookieAmongOthers) {
  EXPECT_EQ(CookieValue("a=1; perfhive_session=6869; b=2", kSessionCookie), "6869");
  EXPECT_EQ(CookieValue("perfhive_session=ab", kSessionCookie), "ab");
  EXPECT_EQ(CookieValue("xperfhive_session=ab; perfhive_sessions=cd", kSessionCookie), "");
  EXPECT_EQ(CookieValue("", kSessionCookie), "");
}

}  // namespace
}  // namespace perfhive
