#include "config/duration.h"

#include <gtest/gtest.h>

namespace perfhive {
namespace {

using std::chrono::milliseconds;

TEST(DurationTest, ReadsEveryUnitAndCombinations) {
  EXPECT_EQ(*ParseDuration("100ms"), milliseconds(100));
  EXPECT_EQ(*ParseDuration("10s"), milliseconds(10000));
  EXPECT_EQ(*ParseDuration("5m"), milliseconds(300000));
  EXPECT_EQ(*ParseDuration("1h"), milliseconds(3600000));
  EXPECT_EQ(*ParseDuration("1m30s"), milliseconds(90000));
}

TEST(DurationTest, RejectsWhatIsNotADuration) {
  for (const char* text :
       {"", "10", "s", "10x", "-5s", "1.5s", "0s", "10 s", "99999999999999999h"}) {
    Result<milliseconds> parsed = ParseDuration(text);
    EXPECT_FALSE(parsed.ok()) << text;
    if (!parsed.ok()) {
      EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << text;
    }
  }
  EXPECT_NE(ParseDuration("10x").error().find("unknown unit \"x\""), std::string::npos);
}

TEST(DurationTest, FormatsTheShortestTextThatReadsBack) {
  EXPECT_EQ(FormatDuration(milliseconds(10000)), "10s");
  EXPECT_EQ(FormatDuration(milliseconds(90000)), "1m30s");
  EXPECT_EQ(FormatDuration(milliseconds(250)), "250ms");
  EXPECT_EQ(FormatDuration(milliseconds(3600000)), "1h");
}

}  // namespace
}  // namespace perfhive
