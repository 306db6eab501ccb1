// What a compacted group keeps of each of its snapshots beside its columnar block: one row of
// the `blocks` table holds them all, packed, instead of a row of `snapshots` each
// (docs/store_format.md, "Blocks: one row per compacted group"). A snapshot's row cost about
// 200 bytes with its index entries; packed, it takes about 45, most of them its SHA-256.

#ifndef PERFHIVE_STORE_BLOCK_MEMBERS_H_
#define PERFHIVE_STORE_BLOCK_MEMBERS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "port/sha256.h"

namespace perfhive {

// One snapshot of a compacted group, in the order of its block.
struct BlockMember {
  int64_t id = 0;  // the id it was appended with
  int64_t sample_time_ns = 0;
  // Its PerfTime and PerfTime100nSec: unset for snapshots stored before the store kept them.
  std::optional<int64_t> perf_time;
  std::optional<int64_t> perf_time_100ns;
  int64_t receive_time_ns = 0;
  std::string instance_id;
  uint64_t sequence = 0;
  Sha256Digest sha256{};
  int64_t raw_size = 0;

  bool operator==(const BlockMember&) const = default;
};

std::vector<uint8_t> EncodeBlockMembers(std::span<const BlockMember> members);
// DATA_LOSS naming the byte where `bytes` stop making sense.
Result<std::vector<BlockMember>> DecodeBlockMembers(std::span<const uint8_t> bytes);

}  // namespace perfhive

#endif  // PERFHIVE_STORE_BLOCK_MEMBERS_H_
