// The cache of decoded block rows (store/block_row_cache.h) gives a row back only under the id,
// last member id and member count it was decoded with, so a block merged since is decoded again,
// and drops the least recently used rows past its budget of members.

#include "store/block_row_cache.h"

#include <gtest/gtest.h>

#include <memory>

namespace perfhive {
namespace {

// Block `id` of `members` snapshots with ids id, id + 1, ...
std::shared_ptr<const BlockRow> Row(int64_t id, int members) {
  auto row = std::make_shared<BlockRow>();
  row->id = id;
  for (int i = 0; i < members; ++i) row->members.emplace_back().id = id + i;
  return row;
}

TEST(BlockRowCacheTest, ARowComesBackOnlyAsItWasDecoded) {
  BlockRowCache cache(100);
  cache.Put(Row(10, 3));
  ASSERT_NE(cache.Find(10, 12, 3), nullptr);
  EXPECT_EQ(cache.Find(10, 12, 3)->members.size(), 3u);
  // The same block after another was merged into it: more members, a greater last id.
  EXPECT_EQ(cache.Find(10, 40, 6), nullptr);
  EXPECT_EQ(cache.Find(11, 12, 3), nullptr);
}

TEST(BlockRowCacheTest, TheLeastRecentlyUsedRowsGoPastTheBudget) {
  BlockRowCache cache(10);
  cache.Put(Row(100, 4));
  cache.Put(Row(200, 4));
  ASSERT_NE(cache.Find(100, 103, 4), nullptr);  // 100 is now the more recent
  cache.Put(Row(300, 4));                       // 12 members: 200 goes
  EXPECT_NE(cache.Find(100, 103, 4), nullptr);
  EXPECT_EQ(cache.Find(200, 203, 4), nullptr);
  EXPECT_NE(cache.Find(300, 303, 4), nullptr);
  cache.Put(Row(400, 11));  // larger than the whole budget: not kept
  EXPECT_EQ(cache.Find(400, 410, 11), nullptr);
}

}  // namespace
}  // namespace perfhive
