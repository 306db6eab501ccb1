// Host labels as written on the agent's command line, in its settings and in the policies file:
// what is a label, what is not and what the error says.

#include "query/label_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhive::query {
namespace {

using ::testing::HasSubstr;

TEST(LabelTextTest, ParsesKeyAndValue) {
  Result<std::pair<std::string, std::string>> label = ParseHostLabel("role=web");
  ASSERT_TRUE(label.ok()) << label.status().message();
  EXPECT_EQ(label->first, "role");
  EXPECT_EQ(label->second, "web");
  // The first '=' separates: the value may hold more.
  label = ParseHostLabel("k8s.io/zone=a=b");
  EXPECT_FALSE(label.ok());  // '/' is not in a key
  label = ParseHostLabel("team-a.rack_2=Zürich*=1");
  ASSERT_TRUE(label.ok()) << label.status().message();
  EXPECT_EQ(label->first, "team-a.rack_2");
  EXPECT_EQ(label->second, "Zürich*=1");
}

TEST(LabelTextTest, RefusesWhatSelectorsOrTheMsiCouldNotCarry) {
  EXPECT_THAT(ParseHostLabel("role").status().message(), HasSubstr("is not KEY=VALUE"));
  EXPECT_THAT(ParseHostLabel("1role=web").status().message(),
              HasSubstr("\"1role\" is not a label key"));
  EXPECT_THAT(ParseHostLabel("=web").status().message(), HasSubstr("\"\" is not a label key"));
  EXPECT_THAT(ParseHostLabel("host=web01").status().message(),
              HasSubstr("host is the host's own name in selectors"));
  EXPECT_THAT(ParseHostLabel("role=").status().message(), HasSubstr("leave the label out"));
  for (const char* bad : {"role=web,sql", "role=web;sql", "role= web", "role=web ", "role=a\nb",
                          "role=\x1b[31m", "role=\xff"}) {
    EXPECT_THAT(ParseHostLabel(bad).status().message(), HasSubstr("printable UTF-8")) << bad;
  }
  EXPECT_TRUE(ParseHostLabel("role=" + std::string(kMaxLabelValueBytes, 'v')).ok());
  EXPECT_FALSE(ParseHostLabel("role=" + std::string(kMaxLabelValueBytes + 1, 'v')).ok());
  EXPECT_TRUE(ParseHostLabel(std::string(kMaxLabelKeyBytes, 'k') + "=v").ok());
  EXPECT_FALSE(ParseHostLabel(std::string(kMaxLabelKeyBytes + 1, 'k') + "=v").ok());
}

TEST(LabelTextTest, ABoundedNumberOfLabels) {
  HostLabels labels;
  for (size_t i = 0; i < kMaxHostLabels; ++i) labels["k" + std::to_string(i)] = "v";
  EXPECT_TRUE(CheckHostLabels(labels).ok());
  labels["one_more"] = "v";
  EXPECT_THAT(CheckHostLabels(labels).message(), HasSubstr("at most 32 labels, not 33"));
  EXPECT_THAT(CheckHostLabels({{"role", "web"}, {"bad key", "x"}}).message(),
              HasSubstr("\"bad key\" is not a label key"));
}

TEST(LabelTextTest, FormatsInKeyOrder) {
  EXPECT_EQ(FormatHostLabels({{"site", "ams"}, {"role", "web"}}), "role=web,site=ams");
  EXPECT_EQ(FormatHostLabels({}), "");
}

}  // namespace
}  // namespace perfhive::query
