// Host selectors as administrators write them: labels with patterns, negations, the host's own
// name, labels a host lacks, and the errors for what is not a selector.

#include "query/host_selector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace perfhive::query {
namespace {

using ::testing::HasSubstr;

HostSelector Selector(std::string_view text) {
  Result<HostSelector> selector = HostSelector::Parse(text);
  EXPECT_TRUE(selector.ok()) << selector.status().message();
  return selector.ok() ? *selector : HostSelector();
}

const HostLabels kWebAms = {{"role", "web"}, {"site", "ams"}, {"env", "prod"}};
const HostLabels kSqlFra = {{"role", "sql"}, {"site", "fra1"}};

TEST(HostSelectorTest, EveryTermMustHold) {
  HostSelector selector = Selector("role=web,site=ams");
  EXPECT_TRUE(selector.Matches("web01", kWebAms));
  EXPECT_FALSE(selector.Matches("sql01", kSqlFra));
  EXPECT_FALSE(selector.Matches("web02", {{"role", "web"}, {"site", "fra1"}}));
  EXPECT_TRUE(selector.needs_labels());
}

TEST(HostSelectorTest, ValuesArePatternsThatIgnoreCase) {
  EXPECT_TRUE(Selector("site=FRA*").Matches("sql01", kSqlFra));
  EXPECT_FALSE(Selector("site=fra").Matches("sql01", kSqlFra));
  EXPECT_TRUE(Selector("role=*").Matches("web01", kWebAms));
}

TEST(HostSelectorTest, NegatedTermsAndLabelsAHostLacks) {
  EXPECT_TRUE(Selector("role!=sql").Matches("web01", kWebAms));
  EXPECT_FALSE(Selector("role!=sql").Matches("sql01", kSqlFra));
  // A missing label is the empty value: "env=" selects hosts without one, "env!=" hosts with one.
  EXPECT_TRUE(Selector("env=").Matches("sql01", kSqlFra));
  EXPECT_FALSE(Selector("env=").Matches("web01", kWebAms));
  EXPECT_TRUE(Selector("env!=").Matches("web01", kWebAms));
  EXPECT_FALSE(Selector("env=prod").Matches("bare", {}));
}

TEST(HostSelectorTest, HostIsTheHostsOwnName) {
  HostSelector selector = Selector("host=WEB*, role=web");
  EXPECT_TRUE(selector.Matches("web01", kWebAms));
  EXPECT_FALSE(selector.Matches("app01", kWebAms));
  EXPECT_FALSE(Selector("host=web*").needs_labels());
}

TEST(HostSelectorTest, EmptySelectsEveryHost) {
  EXPECT_TRUE(Selector("").selects_everything());
  EXPECT_TRUE(Selector("  ").Matches("anything", {}));
}

TEST(HostSelectorTest, ErrorsNameTheTermAndShowOne) {
  for (const char* text : {"role", "role=web,", ",role=web", "=web", "9x=1", "ro le=web"}) {
    Result<HostSelector> selector = HostSelector::Parse(text);
    ASSERT_FALSE(selector.ok()) << text;
    EXPECT_EQ(selector.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(selector.status().message(), HasSubstr("e.g. role=web,site=ams*")) << text;
  }
  EXPECT_THAT(HostSelector::Parse("role=web,site").status().message(),
              HasSubstr("the term \"site\" is not KEY=VALUE"));
}

}  // namespace
}  // namespace perfhive::query
