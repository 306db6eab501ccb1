// The columnar block of a closed group (store/group_columns.h): every snapshot restores byte for
// byte (checked by SHA-256) from real procfs snapshots of this host, the real Windows captures
// of ../shared and builder-made hosts whose processes come and go; partial restores hold the
// wanted objects and their parents as stored; hostile blocks are refused with DATA_LOSS.

#include "store/group_columns.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "port/sha256.h"
#include "sources/procfs/procfs_source.h"
#include "store/frame_encoding.h"
#include "store/sectioned_frame.h"
#include "tests/store/section_test_util.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive {
namespace {

using Snapshots = std::vector<std::vector<uint8_t>>;

std::vector<std::span<const uint8_t>> Spans(const Snapshots& snapshots) {
  return {snapshots.begin(), snapshots.end()};
}

// Encodes `snapshots` as one block, restores each from a fresh parse (in reverse order, so
// that no stream is decoded for the first member alone) and compares SHA-256s.
std::vector<uint8_t> ExpectRoundTrip(const Snapshots& snapshots) {
  std::vector<uint8_t> block = EncodeGroupColumns(Spans(snapshots), 3);
  Result<FrameEncoding> encoding = FrameEncodingOf(block);
  EXPECT_TRUE(encoding.ok() && *encoding == FrameEncoding::kColumns);
  Result<GroupColumns> parsed = GroupColumns::Parse(block);
  EXPECT_TRUE(parsed.ok()) << parsed.error();
  if (!parsed.ok()) return block;
  EXPECT_EQ(parsed->size(), snapshots.size());
  for (size_t i = snapshots.size(); i-- > 0;) {
    Result<std::vector<uint8_t>> restored = parsed->Restore(i);
    EXPECT_TRUE(restored.ok()) << "snapshot " << i << ": " << restored.error();
    if (!restored.ok()) continue;
    EXPECT_EQ(Sha256(*restored), Sha256(snapshots[i])) << "snapshot " << i;
  }
  return block;
}

// What today's frames take for the same group: a sectioned keyframe and deltas against it.
size_t FramesSize(const Snapshots& snapshots) {
  size_t total = 0;
  std::vector<SnapshotSection> key_sections;
  for (size_t i = 0; i < snapshots.size(); ++i) {
    std::vector<SnapshotSection> sections = testing::SectionsOf(snapshots[i]);
    SectionedBase base{snapshots[0], key_sections};
    total += EncodeSectionedFrame(snapshots[i], sections, i == 0 ? nullptr : &base, 3).size();
    if (i == 0) key_sections = sections;
  }
  return total;
}

// A partial restore holds the header and the objects `wanted` and their parents, each as stored.
void ExpectPartial(GroupColumns& parsed, size_t index, std::span<const uint8_t> raw,
                   const std::function<bool(uint32_t)>& wanted, std::vector<uint32_t> expected) {
  Result<std::vector<uint8_t>> partial = parsed.Restore(index, &wanted);
  ASSERT_TRUE(partial.ok()) << partial.error();
  std::vector<uint32_t> objects = testing::ObjectsAsStored(*partial, raw);
  EXPECT_EQ(objects, expected);
}

TEST(GroupColumnsTest, RestoresHostsWhoseProcessesComeAndGo) {
  Snapshots snapshots;
  for (uint64_t t = 0; t < 60; ++t) {
    // Processes start and exit, an object appears for a while, bytes follow the objects.
    const int processes = 20 + static_cast<int>(t % 7) - static_cast<int>(t % 3);
    snapshots.push_back(testing::HostSnapshot(
        t, {.processes = processes, .network = t >= 20 && t < 30, .tail = t >= 50 ? 6u : 0u}));
  }
  std::vector<uint8_t> block = ExpectRoundTrip(snapshots);
  EXPECT_LT(block.size(), FramesSize(snapshots));
}

TEST(GroupColumnsTest, KeepsSnapshotsThatDoNotCutWhole) {
  Snapshots snapshots = {testing::HostSnapshot(0, {.processes = 4}),
                         testing::NameOutsideHeader(testing::HostSnapshot(1, {.processes = 4})),
                         {1, 2, 3},
                         {},
                         testing::HostSnapshot(2, {.processes = 4})};
  ExpectRoundTrip(snapshots);
}

TEST(GroupColumnsTest, RestoresOnlyTheObjectsWantedAndTheirParents) {
  Snapshots snapshots;
  for (uint64_t t = 0; t < 10; ++t) {
    snapshots.push_back(testing::HostSnapshot(t, {.processes = 8 + static_cast<int>(t % 2)}));
  }
  std::vector<uint8_t> block = EncodeGroupColumns(Spans(snapshots), 3);
  Result<GroupColumns> parsed = GroupColumns::Parse(block);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  namespace ti = title_index;
  for (size_t i : {0u, 5u, 9u}) {
    ExpectPartial(*parsed, i, snapshots[i], [](uint32_t index) { return index == ti::kProcessor; },
                  {ti::kProcessor});
    ExpectPartial(*parsed, i, snapshots[i], [](uint32_t index) { return index == ti::kThread; },
                  {ti::kProcess, ti::kThread});
    const std::function<bool(uint32_t)> all = [](uint32_t) { return true; };
    Result<std::vector<uint8_t>> everything = parsed->Restore(i, &all);
    ASSERT_TRUE(everything.ok());
    EXPECT_EQ(*everything, snapshots[i]);
  }
}

TEST(GroupColumnsTest, RestoresThisHostsProcfsSnapshots) {
  Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
  ASSERT_TRUE(source.ok()) << source.error();
  Snapshots snapshots;
  for (int i = 0; i < 30; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    Result<std::vector<uint8_t>> raw = (*source)->TakeSnapshot("Global");
    ASSERT_TRUE(raw.ok()) << raw.error();
    snapshots.push_back(std::move(raw).value());
  }
  std::vector<uint8_t> block = ExpectRoundTrip(snapshots);
  EXPECT_LT(block.size(), FramesSize(snapshots));
  Result<GroupColumns> parsed = GroupColumns::Parse(block);
  ASSERT_TRUE(parsed.ok());
  ExpectPartial(*parsed, 17, snapshots[17],
                [](uint32_t index) { return index == title_index::kProcessor; },
                {title_index::kProcessor});
}

TEST(GroupColumnsTest, RestoresRealWindowsCaptures) {
  const std::filesystem::path folder = "realdata/zenoss-windowsmonitor";
  PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(folder);
  Snapshots snapshots;
  for (const char* host : {"kinex01", "s-exch2007-64", "win2003", "wprepw01", "wrxxcrpisax01"}) {
    Snapshots pair;
    for (const char* sample : {"-0.perf", "-1.perf"}) {
      pair.push_back(testing::ReadSharedFixture(folder / (std::string(host) + sample)));
      ASSERT_FALSE(pair.back().empty()) << host << sample;
    }
    // A group of one machine, its two samples taking turns; then every machine in one block.
    ExpectRoundTrip({pair[0], pair[1], pair[0], pair[1], pair[1]});
    snapshots.insert(snapshots.end(), pair.begin(), pair.end());
  }
  ExpectRoundTrip(snapshots);
}

TEST(GroupColumnsTest, RefusesTruncatedAndCorruptedBlocks) {
  Snapshots snapshots;
  for (uint64_t t = 0; t < 4; ++t) {
    snapshots.push_back(testing::HostSnapshot(t, {.processes = 3 + static_cast<int>(t)}));
  }
  const std::vector<uint8_t> block = EncodeGroupColumns(Spans(snapshots), 3);
  auto restore_all = [&](std::span<const uint8_t> bytes) -> Status {
    Result<GroupColumns> parsed = GroupColumns::Parse(bytes);
    if (!parsed.ok()) return parsed.status();
    for (size_t i = 0; i < parsed->size(); ++i) {
      Result<std::vector<uint8_t>> restored = parsed->Restore(i);
      if (!restored.ok()) return restored.status();
      if (*restored != snapshots[i]) return Status::Error("restored other bytes");
    }
    return Status();
  };
  ASSERT_TRUE(restore_all(block).ok());
  for (size_t size = 0; size < block.size(); ++size) {
    Status status = restore_all(std::span(block).first(size));
    ASSERT_EQ(status.code(), StatusCode::kDataLoss) << "prefix of " << size << " bytes";
  }
  // A byte changed anywhere is refused, or changes nothing restored (an object's parents); a
  // body's change is caught by its zstd checksum. Never other bytes.
  size_t refused = 0;
  for (size_t at = 0; at < block.size(); ++at) {
    std::vector<uint8_t> changed = block;
    changed[at] ^= 0x5A;
    Status status = restore_all(changed);
    EXPECT_TRUE(status.ok() || status.code() == StatusCode::kDataLoss) << "byte " << at;
    refused += !status.ok();
  }
  EXPECT_GT(refused, block.size() * 9 / 10);
}

}  // namespace
}  // namespace perfhive
