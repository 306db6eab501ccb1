// The group the store frame fuzzer restores members of, shared by the fuzzer and its seeds: its
// keyframe is a host snapshot of tests/store/section_test_util.h with few processes, so that
// inputs stay small.

#ifndef PERFHIVE_TESTS_FUZZ_STORE_FRAME_BASE_H_
#define PERFHIVE_TESTS_FUZZ_STORE_FRAME_BASE_H_

#include <cstdint>
#include <vector>

#include "tests/store/section_test_util.h"

namespace perfhive::testing {

// How many processes the fuzzer's host snapshots hold (HostSnapshot's default makes 60).
inline constexpr int kFuzzProcesses = 6;

// The group's keyframe, as raw bytes.
inline std::vector<uint8_t> StoreFrameKeyframeRaw() {
  return HostSnapshot(0, {.processes = kFuzzProcesses});
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_FUZZ_STORE_FRAME_BASE_H_
