// The binary layout of Windows performance data (winperf.h), written down as byte offsets so
// that it can be read and written on any platform without <windows.h>. All fields are
// little-endian. The layouts are those of 64-bit Windows; on 32-bit Windows the name pointer
// fields are 4-byte LPWSTRs, which gives the same sizes and offsets.

#ifndef PERFHIVE_PERFDATA_WINPERF_H_
#define PERFHIVE_PERFDATA_WINPERF_H_

#include <cstdint>

namespace perfhive::winperf {

// PERF_DATA_BLOCK: one per snapshot, followed by NumObjectTypes objects.
namespace data_block {
inline constexpr uint32_t kSignature = 0;  // WCHAR[4] L"PERF"
inline constexpr uint32_t kLittleEndian = 8;
inline constexpr uint32_t kVersion = 12;
inline constexpr uint32_t kRevision = 16;
inline constexpr uint32_t kTotalByteLength = 20;
inline constexpr uint32_t kHeaderLength = 24;
inline constexpr uint32_t kNumObjectTypes = 28;
inline constexpr uint32_t kDefaultObject = 32;
inline constexpr uint32_t kSystemTime = 36;  // SYSTEMTIME, 8 WORDs
inline constexpr uint32_t kPerfTime = 56;    // after 4 bytes of alignment padding
inline constexpr uint32_t kPerfFreq = 64;
inline constexpr uint32_t kPerfTime100nSec = 72;
inline constexpr uint32_t kSystemNameLength = 80;
inline constexpr uint32_t kSystemNameOffset = 84;
inline constexpr uint32_t kSize = 88;
}  // namespace data_block

// PERF_OBJECT_TYPE: followed (at HeaderLength) by NumCounters counter definitions and (at
// DefinitionLength) by the instances or the single counter block.
namespace object_type {
inline constexpr uint32_t kTotalByteLength = 0;
inline constexpr uint32_t kDefinitionLength = 4;
inline constexpr uint32_t kHeaderLength = 8;
inline constexpr uint32_t kObjectNameTitleIndex = 12;
inline constexpr uint32_t kObjectNameTitle = 16;
inline constexpr uint32_t kObjectHelpTitleIndex = 20;
inline constexpr uint32_t kObjectHelpTitle = 24;
inline constexpr uint32_t kDetailLevel = 28;
inline constexpr uint32_t kNumCounters = 32;
inline constexpr uint32_t kDefaultCounter = 36;
inline constexpr uint32_t kNumInstances = 40;
inline constexpr uint32_t kCodePage = 44;
inline constexpr uint32_t kPerfTime = 48;
inline constexpr uint32_t kPerfFreq = 56;
inline constexpr uint32_t kSize = 64;
}  // namespace object_type

// PERF_COUNTER_DEFINITION.
namespace counter_definition {
inline constexpr uint32_t kByteLength = 0;
inline constexpr uint32_t kCounterNameTitleIndex = 4;
inline constexpr uint32_t kCounterNameTitle = 8;
inline constexpr uint32_t kCounterHelpTitleIndex = 12;
inline constexpr uint32_t kCounterHelpTitle = 16;
inline constexpr uint32_t kDefaultScale = 20;
inline constexpr uint32_t kDetailLevel = 24;
inline constexpr uint32_t kCounterType = 28;
inline constexpr uint32_t kCounterSize = 32;
inline constexpr uint32_t kCounterOffset = 36;
inline constexpr uint32_t kSize = 40;
}  // namespace counter_definition

// PERF_INSTANCE_DEFINITION: followed by its name and then (at ByteLength) its counter block.
namespace instance_definition {
inline constexpr uint32_t kByteLength = 0;
inline constexpr uint32_t kParentObjectTitleIndex = 4;
inline constexpr uint32_t kParentObjectInstance = 8;
inline constexpr uint32_t kUniqueID = 12;
inline constexpr uint32_t kNameOffset = 16;
inline constexpr uint32_t kNameLength = 20;
inline constexpr uint32_t kSize = 24;
}  // namespace instance_definition

// PERF_COUNTER_BLOCK: a DWORD ByteLength; counter values sit at CounterOffset from its start.
namespace counter_block {
inline constexpr uint32_t kByteLength = 0;
inline constexpr uint32_t kSize = 4;
}  // namespace counter_block

// Special NumInstances values.
inline constexpr int32_t kNoInstances = -1;                // PERF_NO_INSTANCES
inline constexpr int32_t kMetadataMultipleInstances = -2;  // PERF_METADATA_MULTIPLE_INSTANCES
inline constexpr int32_t kMetadataNoInstances = -3;        // PERF_METADATA_NO_INSTANCES
inline constexpr int32_t kNoUniqueId = -1;                 // PERF_NO_UNIQUE_ID

inline constexpr uint32_t kDataVersion = 1;   // PERF_DATA_VERSION
inline constexpr uint32_t kDataRevision = 1;  // PERF_DATA_REVISION

// Detail levels.
inline constexpr uint32_t kDetailNovice = 100;
inline constexpr uint32_t kDetailAdvanced = 200;
inline constexpr uint32_t kDetailExpert = 300;
inline constexpr uint32_t kDetailWizard = 400;

// Bit fields of CounterType.
inline constexpr uint32_t kSizeMask = 0x00000300;
inline constexpr uint32_t kSizeDword = 0x00000000;
inline constexpr uint32_t kSizeLarge = 0x00000100;
inline constexpr uint32_t kSizeZero = 0x00000200;
inline constexpr uint32_t kSizeVariableLen = 0x00000300;
inline constexpr uint32_t kTypeMask = 0x00000C00;
inline constexpr uint32_t kTypeNumber = 0x00000000;
inline constexpr uint32_t kTypeCounter = 0x00000400;
inline constexpr uint32_t kTypeText = 0x00000800;
inline constexpr uint32_t kTypeZero = 0x00000C00;
inline constexpr uint32_t kTimerMask = 0x00300000;
inline constexpr uint32_t kTimerTick = 0x00000000;
inline constexpr uint32_t kTimer100Ns = 0x00100000;
inline constexpr uint32_t kObjectTimer = 0x00200000;
inline constexpr uint32_t kDeltaCounter = 0x00400000;
inline constexpr uint32_t kDeltaBase = 0x00800000;
inline constexpr uint32_t kInverseCounter = 0x01000000;
inline constexpr uint32_t kMultiCounter = 0x02000000;
inline constexpr uint32_t kDisplayMask = 0xF0000000;
inline constexpr uint32_t kDisplayNoSuffix = 0x00000000;
inline constexpr uint32_t kDisplayPerSec = 0x10000000;
inline constexpr uint32_t kDisplayPercent = 0x20000000;
inline constexpr uint32_t kDisplaySeconds = 0x30000000;
inline constexpr uint32_t kDisplayNoShow = 0x40000000;

// Counter types (complete CounterType values).
inline constexpr uint32_t kCounterCounter = 0x10410400;
inline constexpr uint32_t kCounterBulkCount = 0x10410500;
inline constexpr uint32_t kSampleCounter = 0x00410400;
inline constexpr uint32_t kCounterTimer = 0x20410500;
inline constexpr uint32_t kCounterTimerInv = 0x21410500;
inline constexpr uint32_t k100NsecTimer = 0x20510500;
inline constexpr uint32_t k100NsecTimerInv = 0x21510500;
inline constexpr uint32_t kObjTimeTimer = 0x20610500;
inline constexpr uint32_t kCounterMultiTimer = 0x22410500;
inline constexpr uint32_t kCounterMultiTimerInv = 0x23410500;
inline constexpr uint32_t k100NsecMultiTimer = 0x22510500;
inline constexpr uint32_t k100NsecMultiTimerInv = 0x23510500;
inline constexpr uint32_t kCounterMultiBase = 0x42030500;
inline constexpr uint32_t kCounterQueueLen = 0x00450400;
inline constexpr uint32_t kCounterLargeQueueLen = 0x00450500;
inline constexpr uint32_t kCounter100NsQueueLen = 0x00550500;
inline constexpr uint32_t kCounterObjTimeQueueLen = 0x00650500;
inline constexpr uint32_t kSampleFraction = 0x20C20400;
inline constexpr uint32_t kSampleBase = 0x40030401;
inline constexpr uint32_t kRawFraction = 0x20020400;
inline constexpr uint32_t kLargeRawFraction = 0x20020500;
inline constexpr uint32_t kRawBase = 0x40030403;
inline constexpr uint32_t kLargeRawBase = 0x40030500;
inline constexpr uint32_t kPrecisionTimestamp = kLargeRawBase;
inline constexpr uint32_t kAverageTimer = 0x30020400;
inline constexpr uint32_t kAverageBulk = 0x40020500;
inline constexpr uint32_t kAverageBase = 0x40030402;
inline constexpr uint32_t kElapsedTime = 0x30240500;
inline constexpr uint32_t kCounterDelta = 0x00400400;
inline constexpr uint32_t kCounterLargeDelta = 0x00400500;
inline constexpr uint32_t kCounterRawcount = 0x00010000;
inline constexpr uint32_t kCounterLargeRawcount = 0x00010100;
inline constexpr uint32_t kCounterRawcountHex = 0x00000000;
inline constexpr uint32_t kCounterLargeRawcountHex = 0x00000100;
inline constexpr uint32_t kPrecisionSystemTimer = 0x20470500;
inline constexpr uint32_t kPrecision100NsTimer = 0x20570500;
inline constexpr uint32_t kPrecisionObjectTimer = 0x20670500;
inline constexpr uint32_t kCounterText = 0x00000B00;
inline constexpr uint32_t kCounterNodata = 0x40000200;
inline constexpr uint32_t kCounterHistogramType = 0x80000000;

}  // namespace perfhive::winperf

#endif  // PERFHIVE_PERFDATA_WINPERF_H_
