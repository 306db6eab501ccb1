// Export positions: kept per receiver and host, across a reopen, never moved back, and added to a
// database written by the previous schema version.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/store.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using testing::MakeAppend;
using testing::OpenStore;
using testing::SampleNs;
using testing::SmallSnapshot;
using testing::TempDir;

void AddHosts(Store& store) {
  ASSERT_TRUE(store.Append(MakeAppend("web01", "boot-1", 1, SmallSnapshot(1))).ok());
  ASSERT_TRUE(store.Append(MakeAppend("db02", "boot-1", 1, SmallSnapshot(2))).ok());
}

std::vector<std::pair<std::string, int64_t>> Positions(Store& store, const std::string& receiver) {
  Result<std::vector<ExportPosition>> positions = store.catalog().ExportPositions(receiver);
  EXPECT_TRUE(positions.ok()) << positions.error();
  std::vector<std::pair<std::string, int64_t>> out;
  if (positions.ok()) {
    for (const ExportPosition& p : *positions) out.emplace_back(p.host, p.sample_time_ns);
  }
  return out;
}

using PositionList = std::vector<std::pair<std::string, int64_t>>;

TEST(StoreExportPositionsTest, KeptPerReceiverAndHostAcrossAReopen) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    AddHosts(*store);
    EXPECT_TRUE(Positions(*store, "http://a/api/v1/write").empty());
    ASSERT_TRUE(store->catalog()
                    .SetExportPositions("http://a/api/v1/write",
                                        {{"web01", SampleNs(10)}, {"DB02", SampleNs(20)}})
                    .ok());
    ASSERT_TRUE(store->catalog()
                    .SetExportPositions("http://b/api/v1/write", {{"web01", SampleNs(5)}})
                    .ok());
  }
  auto store = OpenStore(dir.path());
  // Hosts are named as the store knows them, ignoring the case they were given in.
  EXPECT_EQ(Positions(*store, "http://a/api/v1/write"),
            (PositionList{{"db02", SampleNs(20)}, {"web01", SampleNs(10)}}));
  EXPECT_EQ(Positions(*store, "http://b/api/v1/write"), (PositionList{{"web01", SampleNs(5)}}));
}

TEST(StoreExportPositionsTest, MovesForwardOnly) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  AddHosts(*store);
  ASSERT_TRUE(store->catalog().SetExportPositions("r", {{"web01", SampleNs(30)}}).ok());
  ASSERT_TRUE(store->catalog().SetExportPositions("r", {{"web01", SampleNs(40)}}).ok());
  ASSERT_TRUE(store->catalog().SetExportPositions("r", {{"web01", SampleNs(35)}}).ok());
  EXPECT_EQ(Positions(*store, "r"), (PositionList{{"web01", SampleNs(40)}}));
}

TEST(StoreExportPositionsTest, UnknownHostIsIgnored) {
  TempDir dir;
  auto store = OpenStore(dir.path());
  AddHosts(*store);
  ASSERT_TRUE(store->catalog().SetExportPositions("r", {{"nobody", SampleNs(1)}}).ok());
  EXPECT_TRUE(Positions(*store, "r").empty());
}

TEST(StoreExportPositionsTest, AVersionOneDatabaseGetsTheTableOnOpen) {
  TempDir dir;
  {
    auto store = OpenStore(dir.path());
    AddHosts(*store);
  }
  ASSERT_TRUE(testing::RewindSchema(dir.path(), 1));

  auto store = OpenStore(dir.path());
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->ListSnapshots("web01", 0, INT64_MAX)->size(), 1u);
  ASSERT_TRUE(store->catalog().SetExportPositions("r", {{"web01", SampleNs(7)}}).ok());
  EXPECT_EQ(Positions(*store, "r"), (PositionList{{"web01", SampleNs(7)}}));
}

}  // namespace
}  // namespace perfhive
