#include "store/block_members.h"

#include <algorithm>

#include "base/varint.h"

namespace perfhive {

namespace {

constexpr uint8_t kVersion = 1;
constexpr uint8_t kHasPerfTime = 1;
constexpr uint8_t kHasPerfTime100ns = 2;
// The fewest bytes a member takes (six one-byte numbers, its flags and its SHA-256): bounds the
// count a decoder believes before reading them.
constexpr size_t kMinMemberBytes = 7 + sizeof(Sha256Digest);
constexpr size_t kMaxInstanceIdBytes = 1024;

}  // namespace

std::vector<uint8_t> EncodeBlockMembers(std::span<const BlockMember> members) {
  std::vector<std::string> runs;  // the distinct instance ids, in the order first met
  for (const BlockMember& member : members) {
    if (std::find(runs.begin(), runs.end(), member.instance_id) == runs.end()) {
      runs.push_back(member.instance_id);
    }
  }
  std::vector<uint8_t> out{kVersion};
  PutVarint64(out, members.size());
  PutVarint64(out, runs.size());
  for (const std::string& run : runs) {
    PutVarint64(out, run.size());
    out.insert(out.end(), run.begin(), run.end());
  }
  // Each number as the difference from the member before (the first from 0): ids, clocks and
  // sequences move by small steps within a group.
  int64_t id = 0, sample_time = 0, receive_time = 0, perf_time = 0, perf_time_100ns = 0;
  uint64_t sequence = 0;
  for (const BlockMember& member : members) {
    PutVarint64(out, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(member.id) -
                                                 static_cast<uint64_t>(id))));
    PutVarint64(out, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(member.sample_time_ns) -
                                                 static_cast<uint64_t>(sample_time))));
    PutVarint64(out, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(member.receive_time_ns) -
                                                 static_cast<uint64_t>(receive_time))));
    out.push_back(static_cast<uint8_t>((member.perf_time ? kHasPerfTime : 0) |
                                       (member.perf_time_100ns ? kHasPerfTime100ns : 0)));
    if (member.perf_time) {
      PutVarint64(out, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(*member.perf_time) -
                                                   static_cast<uint64_t>(perf_time))));
      perf_time = *member.perf_time;
    }
    if (member.perf_time_100ns) {
      PutVarint64(out, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(*member.perf_time_100ns) -
                                                   static_cast<uint64_t>(perf_time_100ns))));
      perf_time_100ns = *member.perf_time_100ns;
    }
    PutVarint64(out, static_cast<uint64_t>(std::find(runs.begin(), runs.end(), member.instance_id) -
                                           runs.begin()));
    PutVarint64(out, ZigZag(static_cast<int64_t>(member.sequence - sequence)));
    PutVarint64(out, static_cast<uint64_t>(member.raw_size));
    out.insert(out.end(), member.sha256.begin(), member.sha256.end());
    id = member.id;
    sample_time = member.sample_time_ns;
    receive_time = member.receive_time_ns;
    sequence = member.sequence;
  }
  return out;
}

Result<std::vector<BlockMember>> DecodeBlockMembers(std::span<const uint8_t> bytes) {
  ByteReader in(bytes, "block members");
  const uint8_t version = in.Byte("the version");
  if (in.ok() && version != kVersion) {
    in.Fail("version " + std::to_string(version) + " is not one this build reads (" +
            std::to_string(kVersion) + ")");
  }
  const uint64_t count = in.Bounded(bytes.size() / kMinMemberBytes, "the member count");
  const uint64_t run_count = in.Bounded(count, "the instance id count");
  std::vector<std::string> runs;
  for (uint64_t r = 0; in.ok() && r < run_count; ++r) {
    const uint64_t size = in.Bounded(kMaxInstanceIdBytes, "an instance id's length");
    std::span<const uint8_t> run = in.Fixed(size, "an instance id");
    runs.emplace_back(run.begin(), run.end());
  }
  std::vector<BlockMember> members;
  members.reserve(in.ok() ? count : 0);
  uint64_t id = 0, sample_time = 0, receive_time = 0, perf_time = 0, perf_time_100ns = 0;
  uint64_t sequence = 0;
  for (uint64_t m = 0; in.ok() && m < count; ++m) {
    BlockMember& member = members.emplace_back();
    id += static_cast<uint64_t>(UnZigZag(in.Varint64("an id")));
    sample_time += static_cast<uint64_t>(UnZigZag(in.Varint64("a sample time")));
    receive_time += static_cast<uint64_t>(UnZigZag(in.Varint64("a receive time")));
    const uint8_t flags = in.Byte("the clock flags");
    if (flags & ~(kHasPerfTime | kHasPerfTime100ns)) in.Fail("unknown clock flags");
    if (flags & kHasPerfTime) {
      perf_time += static_cast<uint64_t>(UnZigZag(in.Varint64("a PerfTime")));
      member.perf_time = static_cast<int64_t>(perf_time);
    }
    if (flags & kHasPerfTime100ns) {
      perf_time_100ns += static_cast<uint64_t>(UnZigZag(in.Varint64("a PerfTime100nSec")));
      member.perf_time_100ns = static_cast<int64_t>(perf_time_100ns);
    }
    const uint64_t run = in.Varint64("an instance id's number");
    if (in.ok() && run >= runs.size()) in.Fail("instance id " + std::to_string(run) + " unknown");
    sequence += static_cast<uint64_t>(UnZigZag(in.Varint64("a sequence")));
    member.raw_size = static_cast<int64_t>(in.Bounded(INT64_MAX, "a raw size"));
    std::span<const uint8_t> sha = in.Fixed(member.sha256.size(), "a SHA-256");
    if (!in.ok()) break;
    member.id = static_cast<int64_t>(id);
    member.sample_time_ns = static_cast<int64_t>(sample_time);
    member.receive_time_ns = static_cast<int64_t>(receive_time);
    member.instance_id = runs[run];
    member.sequence = sequence;
    std::copy(sha.begin(), sha.end(), member.sha256.begin());
  }
  if (in.ok() && in.left() != 0) {
    in.Fail(std::to_string(in.left()) + " bytes after the last member");
  }
  if (!in.ok()) return in.status();
  return members;
}

}  // namespace perfhive
