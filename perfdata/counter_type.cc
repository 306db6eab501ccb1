#include "perfdata/counter_type.h"

#include <array>
#include <cstdio>

#include "perfdata/winperf.h"

namespace perfhive {
namespace {

struct NamedType {
  uint32_t type;
  std::string_view name;
};

// PERF_LARGE_RAW_BASE and PERF_PRECISION_TIMESTAMP share a value; the base name is listed
// first, so it is the one printed.
constexpr std::array kNamedTypes = {
    NamedType{winperf::kCounterCounter, "PERF_COUNTER_COUNTER"},
    NamedType{winperf::kCounterBulkCount, "PERF_COUNTER_BULK_COUNT"},
    NamedType{winperf::kSampleCounter, "PERF_SAMPLE_COUNTER"},
    NamedType{winperf::kCounterTimer, "PERF_COUNTER_TIMER"},
    NamedType{winperf::kCounterTimerInv, "PERF_COUNTER_TIMER_INV"},
    NamedType{winperf::k100NsecTimer, "PERF_100NSEC_TIMER"},
    NamedType{winperf::k100NsecTimerInv, "PERF_100NSEC_TIMER_INV"},
    NamedType{winperf::kObjTimeTimer, "PERF_OBJ_TIME_TIMER"},
    NamedType{winperf::kCounterMultiTimer, "PERF_COUNTER_MULTI_TIMER"},
    NamedType{winperf::kCounterMultiTimerInv, "PERF_COUNTER_MULTI_TIMER_INV"},
    NamedType{winperf::k100NsecMultiTimer, "PERF_100NSEC_MULTI_TIMER"},
    NamedType{winperf::k100NsecMultiTimerInv, "PERF_100NSEC_MULTI_TIMER_INV"},
    NamedType{winperf::kCounterMultiBase, "PERF_COUNTER_MULTI_BASE"},
    NamedType{winperf::kCounterQueueLen, "PERF_COUNTER_QUEUELEN_TYPE"},
    NamedType{winperf::kCounterLargeQueueLen, "PERF_COUNTER_LARGE_QUEUELEN_TYPE"},
    NamedType{winperf::kCounter100NsQueueLen, "PERF_COUNTER_100NS_QUEUELEN_TYPE"},
    NamedType{winperf::kCounterObjTimeQueueLen, "PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE"},
    NamedType{winperf::kSampleFraction, "PERF_SAMPLE_FRACTION"},
    NamedType{winperf::kSampleBase, "PERF_SAMPLE_BASE"},
    NamedType{winperf::kRawFraction, "PERF_RAW_FRACTION"},
    NamedType{winperf::kLargeRawFraction, "PERF_LARGE_RAW_FRACTION"},
    NamedType{winperf::kRawBase, "PERF_RAW_BASE"},
    NamedType{winperf::kLargeRawBase, "PERF_LARGE_RAW_BASE"},
    NamedType{winperf::kPrecisionTimestamp, "PERF_PRECISION_TIMESTAMP"},
    NamedType{winperf::kAverageTimer, "PERF_AVERAGE_TIMER"},
    NamedType{winperf::kAverageBulk, "PERF_AVERAGE_BULK"},
    NamedType{winperf::kAverageBase, "PERF_AVERAGE_BASE"},
    NamedType{winperf::kElapsedTime, "PERF_ELAPSED_TIME"},
    NamedType{winperf::kCounterDelta, "PERF_COUNTER_DELTA"},
    NamedType{winperf::kCounterLargeDelta, "PERF_COUNTER_LARGE_DELTA"},
    NamedType{winperf::kCounterRawcount, "PERF_COUNTER_RAWCOUNT"},
    NamedType{winperf::kCounterLargeRawcount, "PERF_COUNTER_LARGE_RAWCOUNT"},
    NamedType{winperf::kCounterRawcountHex, "PERF_COUNTER_RAWCOUNT_HEX"},
    NamedType{winperf::kCounterLargeRawcountHex, "PERF_COUNTER_LARGE_RAWCOUNT_HEX"},
    NamedType{winperf::kPrecisionSystemTimer, "PERF_PRECISION_SYSTEM_TIMER"},
    NamedType{winperf::kPrecision100NsTimer, "PERF_PRECISION_100NS_TIMER"},
    NamedType{winperf::kPrecisionObjectTimer, "PERF_PRECISION_OBJECT_TIMER"},
    NamedType{winperf::kCounterText, "PERF_COUNTER_TEXT"},
    NamedType{winperf::kCounterNodata, "PERF_COUNTER_NODATA"},
    NamedType{winperf::kCounterHistogramType, "PERF_COUNTER_HISTOGRAM_TYPE"},
};

}  // namespace

std::string CounterTypeName(uint32_t type) {
  for (const NamedType& named : kNamedTypes) {
    if (named.type == type) return std::string(named.name);
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08X", type);
  return hex;
}

std::optional<uint32_t> CounterTypeFromName(std::string_view name) {
  for (const NamedType& named : kNamedTypes) {
    if (named.name == name) return named.type;
  }
  return std::nullopt;
}

}  // namespace perfhive
