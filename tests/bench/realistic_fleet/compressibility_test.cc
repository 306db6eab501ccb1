// MeasurePair on builder-made pairs whose differences are known.

#include "tests/bench/realistic_fleet/compressibility.h"

#include <gtest/gtest.h>

#include <vector>

#include "perfdata/snapshot_builder.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;

// A Process object with two processes and three counters (a 4-byte count, an 8-byte time, the
// PID) holding `values` in that order, process by process.
std::vector<uint8_t> Sample(const std::vector<uint64_t>& values) {
  SnapshotBuilder builder;
  builder.set_system_name("HOST").set_perf_time(1000);
  ObjectBuilder& process = builder.AddObject(ti::kProcess);
  process.AddCounter({.name_index = ti::kPageFaultsPerSec, .type = winperf::kCounterCounter});
  process.AddCounter({.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimer});
  process.AddCounter({.name_index = ti::kIdProcess, .type = winperf::kCounterRawcount});
  for (uint32_t p = 0; p < 2; ++p) {
    const uint32_t at = process.AddInstance("svchost");
    for (uint32_t c = 0; c < 3; ++c) process.SetValue(at, c, values[3 * p + c]);
  }
  return builder.Build();
}

TEST(CompressibilityTest, IdenticalSamplesChangeNothing) {
  const std::vector<uint8_t> sample = Sample({1, 2, 8, 3, 4, 12});
  Result<PairFigures> figures = MeasurePair(sample, sample);
  ASSERT_TRUE(figures.ok()) << figures.error();
  EXPECT_EQ(figures->values, 6u);
  EXPECT_EQ(figures->changed, 0u);
  EXPECT_EQ(figures->changed_share(), 0);
  EXPECT_EQ(figures->raw_bytes, sample.size());
  EXPECT_GT(figures->xor_zstd_bytes, 0u);
  EXPECT_LT(figures->xor_zstd_bytes, sample.size() / 4);
}

TEST(CompressibilityTest, DeltasAreSizedAsZigZagVarints) {
  // +1 and −64 take one byte (zig-zag 2 and 127), +64 two (128), a 32-bit count that wrapped
  // from 2^32 − 1 to 0 moved by +1: one byte.
  const std::vector<uint8_t> older = Sample({0xFFFF'FFFF, 1000, 8, 100, 1000, 12});
  const std::vector<uint8_t> newer = Sample({0, 1064, 8, 36, 1001, 12});
  Result<PairFigures> figures = MeasurePair(older, newer);
  ASSERT_TRUE(figures.ok()) << figures.error();
  EXPECT_EQ(figures->values, 6u);
  EXPECT_EQ(figures->changed, 4u);
  EXPECT_EQ(figures->delta_bytes[1], 3u);
  EXPECT_EQ(figures->delta_bytes[2], 1u);
}

TEST(CompressibilityTest, ProcessesPairByPidNotByPosition) {
  // The same two processes in the other order: nothing changed.
  Result<PairFigures> figures =
      MeasurePair(Sample({1, 2, 8, 3, 4, 12}), Sample({3, 4, 12, 1, 2, 8}));
  ASSERT_TRUE(figures.ok()) << figures.error();
  EXPECT_EQ(figures->values, 6u);
  EXPECT_EQ(figures->changed, 0u);
}

TEST(CompressibilityTest, MalformedSamplesAreRefused) {
  const std::vector<uint8_t> good = Sample({1, 2, 8, 3, 4, 12});
  const std::vector<uint8_t> bad(good.begin(), good.begin() + 40);
  EXPECT_FALSE(MeasurePair(bad, good).ok());
  EXPECT_FALSE(MeasurePair(good, bad).ok());
}

}  // namespace
}  // namespace perfhive::fleet
