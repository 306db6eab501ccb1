// The reader on well-formed blobs of known layout, on what real producers send, and on
// hand-made malformed blobs: every error names the structure, the field and the byte offset.

#include "perfdata/snapshot_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "base/byte_order.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;

namespace db = winperf::data_block;
namespace ot = winperf::object_type;
namespace cd = winperf::counter_definition;
namespace id = winperf::instance_definition;

// A snapshot whose layout the tests know byte by byte:
//   0    PERF_DATA_BLOCK, 88 bytes + "H\0" in UTF-16 (4 bytes), padded to 96
//   96   object 238 (Processor): 64-byte header
//   160  counter definition 0: % Processor Time, PERF_100NSEC_TIMER, 8 bytes at offset 8
//   200  counter definition 1: Interrupts/sec, PERF_COUNTER_COUNTER, 4 bytes at offset 16
//   240  instance 0 "0": 24 bytes + "0\0" (4 bytes), padded to 32
//   272  its counter block: ByteLength 24 (4 + 4 padding + 8 + 4, padded to 24)
//   296  instance 1 "_Total" at 296: 24 + 14 bytes, padded to 40
//   336  its counter block, 24 bytes, ending at 360 = TotalByteLength
constexpr uint32_t kObject = 96;
constexpr uint32_t kDefinition0 = 160;
constexpr uint32_t kDefinition1 = 200;
constexpr uint32_t kInstance0 = 240;
constexpr uint32_t kBlock0 = 272;
constexpr uint32_t kInstance1 = 296;
constexpr uint32_t kBlock1 = 336;
constexpr uint32_t kEnd = 360;

std::vector<uint8_t> KnownSnapshot() {
  SnapshotBuilder builder;
  builder.set_system_name("H")
      .set_perf_time(1000)
      .set_perf_freq(10'000'000)
      .set_perf_time_100ns(5000);
  ObjectBuilder& processor = builder.AddObject(238);
  uint32_t time = processor.AddCounter({.name_index = 6, .type = winperf::k100NsecTimer});
  uint32_t interrupts = processor.AddCounter({.name_index = 148, .type = winperf::kCounterCounter});
  uint32_t cpu0 = processor.AddInstance("0");
  uint32_t total = processor.AddInstance("_Total");
  processor.SetValue(cpu0, time, 0x1122334455667788);
  processor.SetValue(cpu0, interrupts, 42);
  processor.SetValue(total, time, 7);
  processor.SetValue(total, interrupts, 43);
  return builder.Build();
}

std::string OpenError(const std::vector<uint8_t>& bytes) {
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  return reader.ok() ? "(opened)" : reader.error();
}

TEST(SnapshotReaderTest, KnownLayoutIsWhereTheCommentSays) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  ASSERT_EQ(bytes.size(), kEnd);
  EXPECT_EQ(LoadU32(&bytes[db::kHeaderLength]), kObject);
  EXPECT_EQ(LoadU32(&bytes[kObject + ot::kDefinitionLength]), kInstance0 - kObject);
  EXPECT_EQ(LoadU32(&bytes[kDefinition1 + cd::kCounterOffset]), 16u);
  EXPECT_EQ(LoadU32(&bytes[kInstance0 + id::kByteLength]), kBlock0 - kInstance0);
  EXPECT_EQ(LoadU32(&bytes[kBlock0]), kInstance1 - kBlock0);
  EXPECT_EQ(LoadU32(&bytes[kInstance1 + id::kByteLength]), kBlock1 - kInstance1);
}

TEST(SnapshotReaderTest, ReadsHeaderObjectsCountersAndValues) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  ASSERT_TRUE(reader.ok()) << reader.error();
  EXPECT_EQ(reader->version(), 1u);
  EXPECT_EQ(reader->revision(), 1u);
  EXPECT_EQ(reader->total_byte_length(), kEnd);
  EXPECT_EQ(reader->header_length(), kObject);
  EXPECT_EQ(reader->system_name(), "H");
  EXPECT_EQ(reader->perf_time(), 1000);
  EXPECT_EQ(reader->perf_freq(), 10'000'000);
  EXPECT_EQ(reader->perf_time_100ns(), 5000);
  ASSERT_EQ(reader->num_objects(), 1u);

  std::optional<ObjectView> processor = reader->FindObject(238);
  ASSERT_TRUE(processor.has_value());
  EXPECT_FALSE(reader->FindObject(230).has_value());
  EXPECT_EQ(processor->position(), kObject);
  EXPECT_EQ(processor->num_instances(), 2);
  auto definition = processor->counters().begin();
  CounterDefinitionView time = *definition++;
  CounterDefinitionView interrupts = *definition;
  EXPECT_EQ(time.position(), kDefinition0);
  EXPECT_EQ(time.name_index(), 6u);
  EXPECT_EQ(time.type(), winperf::k100NsecTimer);
  EXPECT_EQ(interrupts.position(), kDefinition1);
  EXPECT_EQ(interrupts.size(), 4u);

  std::vector<std::string> names;
  std::vector<uint64_t> values;
  for (InstanceView instance : processor->instances()) {
    names.push_back(InstanceName(*processor, instance));
    values.push_back(*instance.counters().Value(time));
    values.push_back(*instance.counters().Value(interrupts));
  }
  EXPECT_THAT(names, ::testing::ElementsAre("0", "_Total"));
  EXPECT_THAT(values, ::testing::ElementsAre(0x1122334455667788u, 42u, 7u, 43u));
}

TEST(SnapshotReaderTest, ReadsValuesByCounterSizeNotByType) {
  // A producer (Samba) that reports CounterSize 8 for a DWORD type: the value is 8 bytes wide.
  SnapshotBuilder builder;
  ObjectBuilder& system = builder.AddObject(2);
  uint32_t c = system.AddCounter({.name_index = 250, .type = winperf::kCounterRawcount, .size = 8});
  system.set_no_instances();
  system.SetValue(0, c, 0x100000002);
  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  ASSERT_TRUE(reader.ok()) << reader.error();
  ObjectView object = *reader->objects().begin();
  InstanceView only = *object.instances().begin();
  EXPECT_FALSE(only.has_definition());
  EXPECT_EQ(only.counters().Value(*object.counters().begin()), 0x100000002u);
}

TEST(SnapshotReaderTest, AcceptsTotalByteLengthThatExcludesTheHeader) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[db::kTotalByteLength], kEnd - kObject);  // as Samba writes it
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  ASSERT_TRUE(reader.ok()) << reader.error();
  EXPECT_EQ(reader->objects().begin().operator*().num_instances(), 2);
}

TEST(SnapshotReaderTest, FollowsOffsetsAcrossPadding) {
  // Eight bytes of padding between the definitions and the first instance, and more after the
  // object: lengths say where things are, not sizeof.
  std::vector<uint8_t> bytes = KnownSnapshot();
  bytes.insert(bytes.begin() + kInstance0, 8, 0xEE);
  bytes.insert(bytes.end(), 16, 0xEE);
  StoreU32(&bytes[kObject + ot::kDefinitionLength], kInstance0 + 8 - kObject);
  StoreU32(&bytes[kObject + ot::kTotalByteLength], kEnd + 8 - kObject);
  StoreU32(&bytes[db::kTotalByteLength], kEnd + 24);
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  ASSERT_TRUE(reader.ok()) << reader.error();
  ObjectView object = *reader->objects().begin();
  CounterDefinitionView interrupts = *++object.counters().begin();
  auto instance = object.instances().begin();
  EXPECT_EQ(InstanceName(object, *instance), "0");
  EXPECT_EQ((*++instance).counters().Value(interrupts), 43u);
}

TEST(SnapshotReaderTest, MetadataObjectHasDefinitionsButNoInstances) {
  SnapshotBuilder builder;
  ObjectBuilder& object = builder.AddObject(230);
  object.AddCounter({.name_index = 6, .type = winperf::k100NsecTimer});
  object.set_metadata(winperf::kMetadataMultipleInstances);
  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  ASSERT_TRUE(reader.ok()) << reader.error();
  ObjectView view = *reader->objects().begin();
  EXPECT_FALSE(view.has_data());
  EXPECT_EQ(view.counters().size(), 1u);
  EXPECT_TRUE(view.instances().empty());
}

TEST(SnapshotReaderTest, InstanceNameInCodePage) {
  SnapshotBuilder builder;
  ObjectBuilder& object = builder.AddObject(230);
  object.set_code_page(1252);
  object.AddInstance("caf\xE9");  // Latin-1 / 1252 bytes as the producer wrote them
  std::vector<uint8_t> bytes = builder.Build();
  Result<SnapshotReader> reader = SnapshotReader::Open(bytes);
  ASSERT_TRUE(reader.ok()) << reader.error();
  ObjectView view = *reader->objects().begin();
  EXPECT_EQ(InstanceName(view, *view.instances().begin()), "caf\xC3\xA9");
}

// Malformed input: one field broken at a time.

TEST(SnapshotReaderMalformedTest, TooShortForTheHeader) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  bytes.resize(40);
  EXPECT_EQ(OpenError(bytes),
            "data block at byte 0: 40 bytes are fewer than PERF_DATA_BLOCK needs (88)");
}

TEST(SnapshotReaderMalformedTest, BadSignature) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  bytes[2] = 'X';
  EXPECT_EQ(OpenError(bytes), "data block at byte 0: Signature is not \"PERF\" in UTF-16");
}

TEST(SnapshotReaderMalformedTest, TruncatedBlock) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  bytes.resize(300);
  EXPECT_EQ(OpenError(bytes),
            "data block at byte 0: TotalByteLength 360 exceeds the 300 bytes available "
            "(truncated?)");
}

TEST(SnapshotReaderMalformedTest, HeaderLengthPastTheEnd) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[db::kHeaderLength], 4096);
  EXPECT_EQ(OpenError(bytes),
            "data block at byte 0: HeaderLength 4096 exceeds the 360 bytes "
            "available");
}

TEST(SnapshotReaderMalformedTest, SystemNameOutsideTheBuffer) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[db::kSystemNameOffset], 358);
  EXPECT_THAT(OpenError(bytes), HasSubstr("system name (SystemNameOffset 358, SystemNameLength 4)"
                                          " lies outside the 360 bytes available"));
}

TEST(SnapshotReaderMalformedTest, HugeNumObjectTypes) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[db::kNumObjectTypes], 0x7FFFFFFF);
  EXPECT_EQ(OpenError(bytes),
            "data block at byte 0: NumObjectTypes 2147483647 cannot fit in the "
            "264 bytes after the header");
}

TEST(SnapshotReaderMalformedTest, SecondObjectMissing) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[db::kNumObjectTypes], 2);
  bytes.resize(kEnd + 32, 0);
  StoreU32(&bytes[db::kTotalByteLength], kEnd + 32);
  EXPECT_EQ(OpenError(bytes),
            "object 1 at byte 360: PERF_OBJECT_TYPE runs past the end of the "
            "data (byte 392)");
}

TEST(SnapshotReaderMalformedTest, ObjectLengthPastTheEnd) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kObject + ot::kTotalByteLength], 100000);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96: TotalByteLength 100000 runs past the end of "
            "the data (byte 360)");
}

TEST(SnapshotReaderMalformedTest, ZeroObjectLength) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kObject + ot::kTotalByteLength], 0);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96: TotalByteLength 0 is smaller than "
            "PERF_OBJECT_TYPE (64 bytes)");
}

TEST(SnapshotReaderMalformedTest, DefinitionLengthExceedsTotalByteLength) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kObject + ot::kDefinitionLength], 9000);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96: DefinitionLength 9000 exceeds TotalByteLength 264");
}

TEST(SnapshotReaderMalformedTest, ObjectHeaderLengthTooSmall) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kObject + ot::kHeaderLength], 8);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96: HeaderLength 8 is smaller than "
            "PERF_OBJECT_TYPE (64 bytes)");
}

TEST(SnapshotReaderMalformedTest, ZeroCounterDefinitionByteLength) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kDefinition1 + cd::kByteLength], 0);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, counter definition 1 at byte 200: ByteLength "
            "0 is smaller than PERF_COUNTER_DEFINITION (40 bytes)");
}

TEST(SnapshotReaderMalformedTest, TooManyCountersForTheDefinitions) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kObject + ot::kNumCounters], 3);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96: NumCounters 3 cannot fit in DefinitionLength 144");
}

TEST(SnapshotReaderMalformedTest, CounterValuePastTheBlock) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kDefinition1 + cd::kCounterOffset], 22);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, instance 0 at byte 240, counter block at byte 272: ByteLength 24 "
            "is too short for counter 1 (CounterOffset+CounterSize 26)");
}

TEST(SnapshotReaderMalformedTest, HugeNumInstances) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kObject + ot::kNumInstances], 0x7FFFFFFF);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96: NumInstances 2147483647 cannot fit in the 120 "
            "bytes left of the object");
}

TEST(SnapshotReaderMalformedTest, NumInstancesBelowMinusThree) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreI32(&bytes[kObject + ot::kNumInstances], -4);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96: NumInstances -4 is not a count nor -1, -2 or -3");
}

TEST(SnapshotReaderMalformedTest, OneMoreInstanceThanThereIs) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kObject + ot::kNumInstances], 3);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, instance 2 at byte 360: does not fit in the "
            "object (ends at byte 360)");
}

TEST(SnapshotReaderMalformedTest, ZeroInstanceByteLength) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kInstance1 + id::kByteLength], 0);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, instance 1 at byte 296: ByteLength 0 is "
            "smaller than PERF_INSTANCE_DEFINITION (24 bytes)");
}

TEST(SnapshotReaderMalformedTest, InstanceLengthThatWouldWrapAround) {
  // 0xFFFFFFF0 added to the offset in 32 bits would point back into the block: a loop.
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kInstance0 + id::kByteLength], 0xFFFFFFF0);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, instance 0 at byte 240: ByteLength 4294967280 "
            "runs past the end of the object (byte 360)");
}

TEST(SnapshotReaderMalformedTest, ZeroCounterBlockByteLength) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kBlock0], 0);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, instance 0 at byte 240, counter block at byte "
            "272: ByteLength 0 is smaller than PERF_COUNTER_BLOCK (4 bytes)");
}

TEST(SnapshotReaderMalformedTest, CounterBlockPastTheObject) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kBlock1], 64);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, instance 1 at byte 296, counter block at byte "
            "336: ByteLength 64 runs past the end of the object (byte 360)");
}

TEST(SnapshotReaderMalformedTest, NameOffsetOutsideTheInstance) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreU32(&bytes[kInstance1 + id::kNameOffset], 36);  // 36 + 14 > 40
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, instance 1 at byte 296: name (NameOffset 36, "
            "NameLength 14) lies outside the instance's 40 bytes");
  StoreU32(&bytes[kInstance1 + id::kNameOffset], 4);  // inside the definition's own fields
  EXPECT_THAT(OpenError(bytes), HasSubstr("name (NameOffset 4, NameLength 14) lies outside"));
}

TEST(SnapshotReaderMalformedTest, NoInstanceObjectWithoutRoomForItsBlock) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  StoreI32(&bytes[kObject + ot::kNumInstances], winperf::kNoInstances);
  StoreU32(&bytes[kObject + ot::kDefinitionLength], kEnd - kObject - 2);
  EXPECT_EQ(OpenError(bytes),
            "object 0 at byte 96, counter block at byte 358: does not fit in the "
            "object (ends at byte 360)");
}

TEST(SnapshotReaderMalformedTest, EveryTruncationIsAnErrorNotACrash) {
  std::vector<uint8_t> bytes = KnownSnapshot();
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(size));
    EXPECT_FALSE(SnapshotReader::Open(cut).ok()) << size;
  }
}

TEST(SnapshotReaderMalformedTest, EveryByteFlipIsCheckedOrHarmless) {
  // Flip each byte of the known snapshot in turn: either Open() rejects it, or every view it
  // hands out stays inside the buffer (checked by ASan in the sanitizer build).
  std::vector<uint8_t> bytes = KnownSnapshot();
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::vector<uint8_t> flipped = bytes;
    flipped[at] ^= 0xFF;
    Result<SnapshotReader> reader = SnapshotReader::Open(flipped);
    if (!reader.ok()) continue;
    uint64_t sum = 0;
    for (ObjectView object : reader->objects()) {
      for (InstanceView instance : object.instances()) {
        sum += InstanceName(object, instance).size();
        for (CounterDefinitionView counter : object.counters()) {
          sum += instance.counters().Bytes(counter).size();
        }
      }
    }
    EXPECT_GE(sum, 0u);
  }
}

}  // namespace
}  // namespace perfhive
