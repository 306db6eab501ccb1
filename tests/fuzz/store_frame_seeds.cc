// Writes the seed corpus for store_frame_fuzzer: the fixed group's sectioned keyframe, members
// made against it (same layout, grown, with an object the keyframe lacks, with bytes after the
// objects, one section, unchanged), frames stored whole before sections, and a few hand-made
// tables; columnar blocks of a few snapshots of the fixed group's host; and a block row's members.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "codec/snapshot_delta.h"
#include "store/block_members.h"
#include "store/group_columns.h"
#include "tests/fuzz/seed_corpus.h"
#include "tests/fuzz/store_frame_base.h"

namespace {

using perfhive::testing::HostSnapshot;
using perfhive::testing::Keyframe;
using perfhive::testing::kFuzzProcesses;
using perfhive::testing::Member;
using perfhive::testing::NameOutsideHeader;

// The magic, then `numbers` as LEB128 varints (docs/store_format.md).
std::vector<uint8_t> Table(std::initializer_list<uint32_t> numbers) {
  std::vector<uint8_t> out = {'P', 'H', 'S', 1};
  for (uint32_t value : numbers) {
    while (value >= 0x80) {
      out.push_back(static_cast<uint8_t>(value | 0x80));
      value >>= 7;
    }
    out.push_back(static_cast<uint8_t>(value));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  const std::vector<uint8_t> key = perfhive::testing::StoreFrameKeyframeRaw();
  const std::vector<uint8_t> member = HostSnapshot(1, {.processes = kFuzzProcesses});
  corpus.Write("keyframe", Keyframe(key));
  corpus.Write("member", Member(member, key));
  corpus.Write("member_grown", Member(HostSnapshot(2, {.processes = kFuzzProcesses + 3}), key));
  corpus.Write(
      "member_new_object",
      Member(HostSnapshot(3, {.processes = kFuzzProcesses, .system = false, .network = true}),
             key));
  corpus.Write("member_tail",
               Member(HostSnapshot(4, {.processes = kFuzzProcesses, .tail = 12}), key));
  corpus.Write("member_one_section",
               Member(NameOutsideHeader(HostSnapshot(5, {.processes = kFuzzProcesses})), key));
  corpus.Write("member_unchanged", Member(key, key));
  corpus.Write("keyframe_tail",
               Keyframe(HostSnapshot(6, {.processes = kFuzzProcesses, .tail = 5})));
  corpus.Write("whole_keyframe", perfhive::EncodeDelta({}, key));
  corpus.Write("whole_delta", perfhive::EncodeDelta(key, member));
  // One section of 8 bytes stored alone, with a one-byte body; and one "the same as" section 0.
  corpus.Write("table_alone", Table({1, 8, 0, 0, 1, 0, 0, 0x28}));
  corpus.Write("table_same", Table({1, 104, 3, 1, 0, 0, 0}));
  // Columnar blocks: the same layout, processes that come and go, an object for a while, a
  // snapshot that does not cut.
  std::vector<std::vector<uint8_t>> group = {key, member};
  std::vector<std::span<const uint8_t>> spans(group.begin(), group.end());
  corpus.Write("columns_same_layout", perfhive::EncodeGroupColumns(spans, 1));
  group = {key, HostSnapshot(2, {.processes = kFuzzProcesses + 1}),
           HostSnapshot(3, {.processes = kFuzzProcesses - 1, .network = true}),
           NameOutsideHeader(HostSnapshot(5, {.processes = 2})),
           HostSnapshot(4, {.processes = kFuzzProcesses, .tail = 3})};
  spans.assign(group.begin(), group.end());
  corpus.Write("columns_changing", perfhive::EncodeGroupColumns(spans, 1));
  // A block row's members: two runs, one snapshot stored before its clocks were kept.
  std::vector<perfhive::BlockMember> members(3);
  for (size_t i = 0; i < members.size(); ++i) {
    members[i].id = 40 + static_cast<int64_t>(i);
    members[i].sample_time_ns = 1'740'823'200'000'000'000 + static_cast<int64_t>(i) * 10'000;
    if (i > 0) members[i].perf_time = members[i].perf_time_100ns = 9'000 + static_cast<int64_t>(i);
    members[i].receive_time_ns = members[i].sample_time_ns + 5;
    members[i].instance_id = i < 2 ? "run-a" : "run-b";
    members[i].sequence = 7 + i;
    members[i].raw_size = 4096;
    members[i].sha256[0] = static_cast<uint8_t>(i);
  }
  corpus.Write("block_members", perfhive::EncodeBlockMembers(members));
  return 0;
}
