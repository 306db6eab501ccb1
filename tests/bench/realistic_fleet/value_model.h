// ValueModel: how one counter value of a real machine moves from sample to sample, read off the
// machine's two consecutive real samples by the counter's type: event counts grow at the rate
// the pair shows, timers accumulate the share of the clock they showed, gauges wander around
// their value, bases follow their clock or count the events their numerator averages over, and
// a value that did not move stays where it is (most of them do, in real data).

#ifndef PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_VALUE_MODEL_H_
#define PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_VALUE_MODEL_H_

#include <cstdint>
#include <limits>

namespace perfhive::fleet {

enum class Motion : uint8_t {
  kConstant,   // keeps its value
  kEvents,     // grows by `rate` events per second, in lumps of `granularity`; wraps in its width
  kBusyTime,   // timer: grows by `rate` (0..1) of its clock's advance
  kIdleTime,   // inverse timer: grows by (1 − `rate`) of its clock's advance; `rate` is the busy
               // share
  kQueueTime,  // queue length timer: grows by `rate` (the average queue length) × its clock's
               // advance
  kClock,      // a timestamp (a precision timer's base): its clock plus `offset`
  kStartTime,  // PERF_ELAPSED_TIME: a start time `offset` before its clock at the first sample
  kGauge,  // wanders around its first value, `rate` its step per √second; ≤ `partner`'s value
  kPeak,   // the largest value gauge `partner` has had
  kPerEvent,  // grows by `rate` per event counted by base `partner` (averages, sample fractions)
  kCopy,      // the value of counter `partner` (the two were equal in both real samples)
};

// The time base a timer accumulates in: the block's PerfTime, PerfTime100nSec, or the object's
// PerfTime (the PERF_TIMER_* bits of the type say which).
enum class Clock : uint8_t { kTick, k100Ns, kObject };

inline constexpr uint32_t kNoPartner = std::numeric_limits<uint32_t>::max();

struct ValueModel {
  Motion motion = Motion::kConstant;
  Clock clock = Clock::kTick;
  // Counts what has accumulated since boot (events, times, the count of an average's base): a
  // host with another uptime starts it from another value.
  bool cumulative = false;
  uint32_t partner = kNoPartner;  // a counter position in the same instance
  uint64_t granularity = 1;       // every move is a multiple of it (pages, sectors, ticks)
  double rate = 0;
  int64_t offset = 0;
};

// The clocks of one real sample in the units the counter types count in.
struct SampleClocks {
  int64_t tick = 0;
  int64_t tick_freq = 0;
  int64_t ns100 = 0;
  int64_t object = 0;
  int64_t object_freq = 0;
  // The object's PerfTime is a running clock (PerfTime100nSec or PerfTime with an offset); some
  // providers leave it 0 or fill it with a constant.
  bool object_known = false;
  int64_t Of(Clock clock) const {
    return clock == Clock::k100Ns ? ns100 : clock == Clock::kObject ? object : tick;
  }
  int64_t FrequencyOf(Clock clock) const {
    return clock == Clock::k100Ns ? 10'000'000 : clock == Clock::kObject ? object_freq : tick_freq;
  }
};

// One counter of one instance in the real samples. A single sample has newer == older.
struct CounterPair {
  uint32_t type = 0;
  uint32_t size = 0;
  uint64_t older = 0;
  uint64_t newer = 0;
};

// The counter's model. `previous` and `next` are the definitions before and after it in the
// object (a base's numerator, a numerator's base), nullptr at either end; `position` is the
// counter's own; `seconds` the real interval between the samples (0 for a single sample: nothing
// is known to move but clocks and start times).
ValueModel ModelCounter(const CounterPair& value, const CounterPair* previous,
                        const CounterPair* next, uint32_t position, const SampleClocks& older,
                        const SampleClocks& newer, double seconds);

// The timer clock the type's PERF_TIMER_* bits name.
Clock ClockOfType(uint32_t type);

// All ones in the counter's width (4 or 8 bytes).
inline uint64_t WidthMask(uint32_t size) {
  return size == 4 ? 0xFFFF'FFFFull : std::numeric_limits<uint64_t>::max();
}

}  // namespace perfhive::fleet

#endif  // PERFHIVE_TESTS_BENCH_REALISTIC_FLEET_VALUE_MODEL_H_
