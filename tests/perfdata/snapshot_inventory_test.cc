// SnapshotInventory over the real captures of ../shared/fixtures: what each holds, found here by
// walking the objects independently, the encoding's round trip, and the decoder's refusals.

#include "perfdata/snapshot_inventory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "perfdata/well_known_indexes.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

constexpr char kZenoss[] = "realdata/zenoss-windowsmonitor";
const char* const kHosts[] = {"kinex01", "s-exch2007-64", "win2003", "wprepw01", "wrxxcrpisax01"};

std::vector<uint8_t> RealCapture(const std::string& name) {
  return testing::ReadSharedFixture(std::filesystem::path(kZenoss) / name);
}

// Object index → counter indexes, by a map of sets rather than InventoryOf's sorted vectors.
std::map<uint32_t, std::set<uint32_t>> Walk(const SnapshotReader& reader) {
  std::map<uint32_t, std::set<uint32_t>> objects;
  for (const ObjectView& object : reader.objects()) {
    if (object.num_instances() < winperf::kNoInstances) continue;
    std::set<uint32_t>& counters = objects[object.name_index()];
    for (const CounterDefinitionView& counter : object.counters()) {
      counters.insert(counter.name_index());
    }
  }
  return objects;
}

TEST(SnapshotInventoryTest, RealCapturesHoldWhatAWalkOfTheirObjectsFinds) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
  for (const char* host : kHosts) {
    SCOPED_TRACE(host);
    std::vector<uint8_t> raw = RealCapture(std::string(host) + "-0.perf");
    Result<SnapshotReader> reader = SnapshotReader::Open(raw);
    ASSERT_TRUE(reader.ok()) << reader.error();
    const SnapshotInventory inventory = InventoryOf(*reader);
    const std::map<uint32_t, std::set<uint32_t>> walked = Walk(*reader);
    ASSERT_EQ(inventory.objects.size(), walked.size());
    auto expected = walked.begin();
    for (const ObjectInventory& object : inventory.objects) {
      EXPECT_EQ(object.index, expected->first);
      EXPECT_EQ(std::set<uint32_t>(object.counters.begin(), object.counters.end()),
                expected->second);
      EXPECT_TRUE(std::is_sorted(object.counters.begin(), object.counters.end()));
      ++expected;
    }
  }
}

TEST(SnapshotInventoryTest, ProcessorTimeIsInTheCapturesThatAskedForProcessor) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
  for (const char* host : kHosts) {
    SCOPED_TRACE(host);
    std::vector<uint8_t> raw = RealCapture(std::string(host) + "-0.perf");
    const SnapshotInventory inventory = InventoryOf(*SnapshotReader::Open(raw));
    const ObjectInventory* processor = inventory.Find(title_index::kProcessor);
    // The Exchange server's capture is of other objects (an index list without Processor).
    if (std::string(host) == "s-exch2007-64") {
      EXPECT_EQ(processor, nullptr);
      continue;
    }
    ASSERT_NE(processor, nullptr);
    EXPECT_TRUE(std::binary_search(processor->counters.begin(), processor->counters.end(),
                                   title_index::kPercentProcessorTime));
    EXPECT_EQ(inventory.Find(1), nullptr);
  }
}

TEST(SnapshotInventoryTest, TwoSamplesOfAHostHoldTheSameAndHostsDiffer) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
  std::set<std::vector<uint8_t>> distinct;
  for (const char* host : kHosts) {
    SCOPED_TRACE(host);
    std::vector<uint8_t> first = RealCapture(std::string(host) + "-0.perf");
    std::vector<uint8_t> second = RealCapture(std::string(host) + "-1.perf");
    const SnapshotInventory inventory = InventoryOf(*SnapshotReader::Open(first));
    EXPECT_EQ(inventory, InventoryOf(*SnapshotReader::Open(second)));
    distinct.insert(EncodeInventory(inventory));
  }
  // The five machines' object sets differ: what the fleet's health report compares.
  EXPECT_EQ(distinct.size(), std::size(kHosts));
}

TEST(SnapshotInventoryTest, EncodingRoundTripsEveryRealCapture) {
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(kZenoss);
  for (const char* host : kHosts) {
    SCOPED_TRACE(host);
    std::vector<uint8_t> raw = RealCapture(std::string(host) + "-0.perf");
    const SnapshotInventory inventory = InventoryOf(*SnapshotReader::Open(raw));
    const std::vector<uint8_t> encoded = EncodeInventory(inventory);
    Result<SnapshotInventory> decoded = DecodeInventory(encoded);
    ASSERT_TRUE(decoded.ok()) << decoded.error();
    EXPECT_EQ(*decoded, inventory);
    // Small beside the snapshot: a row per change costs little.
    EXPECT_LT(encoded.size() * 10, raw.size());
    // Every shorter prefix is refused: the counts ask for bytes that are not there.
    for (size_t size = 0; size < encoded.size(); ++size) {
      EXPECT_FALSE(DecodeInventory(std::span(encoded).first(size)).ok()) << size;
    }
  }
}

TEST(SnapshotInventoryTest, TheDecoderRefusesWhatTheEncoderNeverWrites) {
  const SnapshotInventory inventory{{{2, {4, 6}}, {238, {6, 140}}}};
  std::vector<uint8_t> bytes = EncodeInventory(inventory);
  ASSERT_TRUE(DecodeInventory(bytes).ok());

  std::vector<uint8_t> trailing = bytes;
  trailing.push_back(0);
  Result<SnapshotInventory> decoded = DecodeInventory(trailing);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(decoded.error().find("1 bytes after the objects"), std::string::npos)
      << decoded.error();

  std::vector<uint8_t> version = bytes;
  version[0] = 2;
  decoded = DecodeInventory(version);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("version is 2"), std::string::npos) << decoded.error();

  // Object 2 then a step of 0: the same object twice.
  const std::vector<uint8_t> repeated = {1, 2, 2, 0, 0, 0};
  decoded = DecodeInventory(repeated);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("object index repeats"), std::string::npos) << decoded.error();

  // One object whose counters step 4 then 0.
  const std::vector<uint8_t> counter_repeated = {1, 1, 2, 2, 4, 0};
  decoded = DecodeInventory(counter_repeated);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().find("counter index repeats"), std::string::npos) << decoded.error();

  // A count far beyond the bytes: refused before anything is allocated for it.
  const std::vector<uint8_t> huge = {1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  EXPECT_FALSE(DecodeInventory(huge).ok());
}

}  // namespace
}  // namespace perfhive
