#include "perfdata/index_list.h"

#include <gtest/gtest.h>

namespace perfhive {
namespace {

using Indexes = std::vector<uint32_t>;

TEST(IndexListTest, ReadsIndexesSeparatedBySpaces) {
  EXPECT_EQ(ParseIndexList("230 238"), Indexes({230, 238}));
  EXPECT_EQ(ParseIndexList("  2   4 4294967295 "), Indexes({2, 4, 4294967295u}));
  EXPECT_EQ(ParseIndexList(""), Indexes());
  EXPECT_EQ(ParseIndexList("   "), Indexes());
}

TEST(IndexListTest, AnythingElseIsNotAList) {
  for (const char* text : {"Global", "Costly", "2 x 4", "2,4", "4294967296", "-2", "2\t4", "2a"}) {
    EXPECT_EQ(ParseIndexList(text), std::nullopt) << text;
  }
}

TEST(IndexListTest, FormatsWhatItReads) {
  EXPECT_EQ(FormatIndexList({}), "");
  EXPECT_EQ(FormatIndexList({230, 238}), "230 238");
  EXPECT_EQ(ParseIndexList(FormatIndexList({1, 0, 7})), Indexes({1, 0, 7}));
}

}  // namespace
}  // namespace perfhive
