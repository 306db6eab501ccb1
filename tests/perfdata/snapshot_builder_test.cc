// Round trips: whatever SnapshotBuilder writes, SnapshotReader reads back exactly, over random
// shapes; and the layout is the one Windows uses (8-byte aligned structures).

#include "perfdata/snapshot_builder.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "perfdata/snapshot_reader.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

// What a test expects to read back for one object.
struct ExpectedInstance {
  std::string name;
  int32_t unique_id;
  uint32_t parent_object;
  uint32_t parent_instance;
  std::vector<uint64_t> values;
};
struct ExpectedObject {
  uint32_t index;
  int32_t num_instances;  // as stored
  uint32_t code_page;
  int64_t perf_time, perf_freq;
  std::vector<CounterSpec> counters;
  std::vector<uint32_t> sizes;
  std::vector<ExpectedInstance> instances;
};

constexpr uint32_t kTypes[] = {
    winperf::kCounterCounter,  winperf::kCounterBulkCount,     winperf::k100NsecTimerInv,
    winperf::kCounterRawcount, winperf::kCounterLargeRawcount, winperf::kAverageTimer,
    winperf::kAverageBase,     winperf::kRawFraction,          winperf::kRawBase,
    winperf::kElapsedTime,     winperf::kCounterDelta,         winperf::kPrecision100NsTimer,
    winperf::kLargeRawBase,    winperf::kCounterMultiTimer};

std::string RandomName(std::mt19937& rng) {
  static const std::vector<std::string> kPieces = {"a",
                                                   "Z",
                                                   "0",
                                                   " ",
                                                   "#",
                                                   "/",
                                                   "\\",
                                                   "(",
                                                   ")",
                                                   "*",
                                                   "\xC3\xA9",
                                                   "\xE6\x97\xA5",
                                                   "\xF0\x9F\x98\x80",
                                                   "svchost",
                                                   "_Total",
                                                   "explorer.exe"};
  std::string name;
  int length = std::uniform_int_distribution<int>(0, 12)(rng);
  for (int i = 0; i < length; ++i) {
    name += kPieces[std::uniform_int_distribution<size_t>(0, kPieces.size() - 1)(rng)];
  }
  return name;
}

uint64_t Truncate(uint64_t value, uint32_t size) {
  return size == 4 ? static_cast<uint32_t>(value) : value;
}

class RoundTripTest : public ::testing::TestWithParam<uint32_t> {};

TEST_P(RoundTripTest, ReaderReadsBackWhatBuilderWrote) {
  std::mt19937 rng(GetParam());
  auto uniform = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };

  SnapshotBuilder builder;
  std::string system_name = RandomName(rng);
  SystemTime time{2026, 11, 0, 22, 11, 30, 5, 250};
  builder.set_system_name(system_name)
      .set_system_time(time)
      .set_perf_time(static_cast<int64_t>(uniform(0, INT64_MAX)))
      .set_perf_freq(10'000'000)
      .set_perf_time_100ns(133'692'341'756'361'838)
      .set_total_length_excludes_header(uniform(0, 3) == 0);

  std::vector<ExpectedObject> expected;
  size_t num_objects = uniform(0, 6);
  for (size_t o = 0; o < num_objects; ++o) {
    ExpectedObject object{static_cast<uint32_t>(2 * uniform(1, 6000)), 0, 0, 0, 0, {}, {}, {}};
    ObjectBuilder& ob = builder.AddObject(object.index);
    object.perf_time = static_cast<int64_t>(uniform(0, 1u << 30));
    object.perf_freq = static_cast<int64_t>(uniform(1, 1u << 30));
    ob.set_perf_time(object.perf_time).set_perf_freq(object.perf_freq);
    size_t num_counters = uniform(0, 12);
    for (size_t c = 0; c < num_counters; ++c) {
      CounterSpec spec;
      spec.name_index = static_cast<uint32_t>(2 * uniform(1, 6000));
      spec.type = kTypes[uniform(0, std::size(kTypes) - 1)];
      // Sometimes a producer writes 8 bytes for a DWORD type, as Samba does.
      if ((spec.type & winperf::kSizeMask) == winperf::kSizeDword && uniform(0, 3) == 0) {
        spec.size = 8;
      }
      spec.default_scale = static_cast<int32_t>(uniform(0, 6)) - 3;
      ob.AddCounter(spec);
      object.counters.push_back(spec);
      object.sizes.push_back(spec.size != 0                                            ? spec.size
                             : (spec.type & winperf::kSizeMask) == winperf::kSizeLarge ? 8
                                                                                       : 4);
    }
    int shape = static_cast<int>(uniform(0, 4));
    size_t num_instances = 0;
    if (shape == 0) {
      ob.set_no_instances();
      object.num_instances = winperf::kNoInstances;
      num_instances = 1;
    } else if (shape == 1) {
      ob.set_metadata(winperf::kMetadataMultipleInstances);
      object.num_instances = winperf::kMetadataMultipleInstances;
    } else {
      if (shape == 2) {
        ob.set_code_page(1252);
        object.code_page = 1252;
      }
      num_instances = uniform(0, 20);
      object.num_instances = static_cast<int32_t>(num_instances);
      for (size_t i = 0; i < num_instances; ++i) {
        std::string name = object.code_page == 0 ? RandomName(rng) : "proc" + std::to_string(i);
        int32_t unique_id = uniform(0, 1) ? -1 : static_cast<int32_t>(uniform(0, 1000));
        uint32_t parent_object = uniform(0, 1) ? 230 : 0;
        uint32_t parent_instance = static_cast<uint32_t>(uniform(0, 50));
        ob.AddInstance(name, unique_id, parent_object, parent_instance);
        object.instances.push_back({name, unique_id, parent_object, parent_instance, {}});
      }
      if (num_instances == 0) object.instances.clear();
    }
    for (size_t i = 0; i < num_instances; ++i) {
      if (object.num_instances == winperf::kNoInstances)
        object.instances.push_back({"", -1, 0, 0, {}});
      for (size_t c = 0; c < num_counters; ++c) {
        uint64_t value = uniform(0, UINT64_MAX);
        ob.SetValue(static_cast<uint32_t>(i), static_cast<uint32_t>(c), value);
        object.instances[i].values.push_back(Truncate(value, object.sizes[c]));
      }
    }
    expected.push_back(object);
  }

  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  ASSERT_TRUE(reader.ok()) << reader.error();
  EXPECT_EQ(reader->system_name(), system_name);
  EXPECT_EQ(reader->system_time(), time);
  EXPECT_EQ(reader->perf_freq(), 10'000'000);
  EXPECT_EQ(reader->perf_time_100ns(), 133'692'341'756'361'838);
  EXPECT_EQ(bytes.size() % 8, 0u);
  ASSERT_EQ(reader->num_objects(), expected.size());

  size_t o = 0;
  for (ObjectView object : reader->objects()) {
    const ExpectedObject& want = expected[o++];
    SCOPED_TRACE("object " + std::to_string(o - 1));
    EXPECT_EQ(object.position() % 8, 0u);
    EXPECT_EQ(object.name_index(), want.index);
    EXPECT_EQ(object.num_instances(), want.num_instances);
    EXPECT_EQ(object.code_page(), want.code_page);
    EXPECT_EQ(object.perf_time(), want.perf_time);
    EXPECT_EQ(object.perf_freq(), want.perf_freq);
    ASSERT_EQ(object.num_counters(), want.counters.size());
    std::vector<CounterDefinitionView> definitions;
    size_t c = 0;
    for (CounterDefinitionView definition : object.counters()) {
      EXPECT_EQ(definition.name_index(), want.counters[c].name_index);
      EXPECT_EQ(definition.help_index(), want.counters[c].name_index + 1);
      EXPECT_EQ(definition.type(), want.counters[c].type);
      EXPECT_EQ(definition.size(), want.sizes[c]);
      EXPECT_EQ(definition.default_scale(), want.counters[c].default_scale);
      EXPECT_EQ(definition.offset() % std::min<uint32_t>(want.sizes[c], 8), 0u);
      definitions.push_back(definition);
      ++c;
    }
    size_t i = 0;
    for (InstanceView instance : object.instances()) {
      ASSERT_LT(i, want.instances.size());
      const ExpectedInstance& want_instance = want.instances[i++];
      EXPECT_EQ(instance.has_definition(), want.num_instances >= 0);
      EXPECT_EQ(instance.position() % 8, 0u);
      EXPECT_EQ(InstanceName(object, instance), want_instance.name);
      EXPECT_EQ(instance.unique_id(), want_instance.unique_id);
      EXPECT_EQ(instance.parent_object_index(), want_instance.parent_object);
      EXPECT_EQ(instance.parent_instance(), want_instance.parent_instance);
      for (size_t k = 0; k < definitions.size(); ++k) {
        EXPECT_EQ(instance.counters().Value(definitions[k]), want_instance.values[k]);
      }
    }
    EXPECT_EQ(i, want.instances.size());
  }
}

INSTANTIATE_TEST_SUITE_P(RandomShapes, RoundTripTest, ::testing::Range(1u, 201u));

TEST(SnapshotBuilderTest, TextCounterKeepsItsBytesAndMultiCountFollowsValue) {
  SnapshotBuilder builder;
  ObjectBuilder& object = builder.AddObject(2);
  uint32_t text = object.AddCounter({.name_index = 10, .type = winperf::kCounterText, .size = 6});
  uint32_t multi = object.AddCounter({.name_index = 12, .type = winperf::kCounterMultiTimer});
  object.set_no_instances();
  const uint8_t hello[] = {'h', 0, 'i', 0};
  object.SetBytes(0, text, hello);
  object.SetValue(0, multi, 77);
  object.SetMultiCount(0, multi, 4);
  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  ASSERT_TRUE(reader.ok()) << reader.error();
  ObjectView view = *reader->objects().begin();
  auto it = view.counters().begin();
  CounterDefinitionView text_def = *it++;
  CounterDefinitionView multi_def = *it;
  CounterBlockView block = (*view.instances().begin()).counters();
  std::span<const uint8_t> got = block.Bytes(text_def);
  EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()),
            (std::vector<uint8_t>{'h', 0, 'i', 0, 0, 0}));
  EXPECT_FALSE(block.Value(text_def).has_value());
  EXPECT_EQ(block.Value(multi_def), 77u);
  EXPECT_EQ(block.DwordAt(multi_def.offset() + 8), 4u);
}

}  // namespace
}  // namespace perfhive
