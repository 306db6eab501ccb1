#include "tests/bench/realistic_fleet/value_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>

#include "perfdata/raw_counter.h"
#include "perfdata/winperf.h"

namespace perfhive::fleet {
namespace {

namespace wp = winperf;

// What a type's value is, for the purpose of moving it.
enum class Kind {
  kEvents,     // a count that only grows
  kTimer,      // time accumulated while busy
  kInverse,    // time accumulated while idle
  kPrecision,  // time accumulated while busy, divided by a timestamp base
  kQueue,      // queue length × time
  kPerEvent,   // an amount per event of its base (average timer, average bulk, sample fraction)
  kFraction,   // a level bounded by its base
  kElapsed,    // a start time
  kOther,      // levels: raw counts and anything else
};

// The PERF_COUNTER_* subtypes of PERF_TYPE_COUNTER types, as winperf.h numbers them.
constexpr uint32_t kSubtypeMask = 0x000F'0000;
constexpr uint32_t kSubtypeValue = 0x0000'0000;
constexpr uint32_t kSubtypeRate = 0x0001'0000;
constexpr uint32_t kSubtypeFraction = 0x0002'0000;
constexpr uint32_t kSubtypeElapsed = 0x0004'0000;
constexpr uint32_t kSubtypeQueueLength = 0x0005'0000;
constexpr uint32_t kSubtypePrecision = 0x0007'0000;

// Read off the type's bit fields, so that a type no list names (a provider's own mix of flags)
// moves as its flags say.
Kind KindOf(uint32_t type) {
  if ((type & wp::kTypeMask) != wp::kTypeCounter) return Kind::kOther;  // numbers, text, none
  const bool percent = (type & wp::kDisplayMask) == wp::kDisplayPercent;
  switch (type & kSubtypeMask) {
    case kSubtypeValue:  // PERF_COUNTER_DELTA
      return (type & wp::kDeltaCounter) != 0 ? Kind::kEvents : Kind::kOther;
    case kSubtypeRate:  // counts per second, or time as a percentage
      if (!percent) return Kind::kEvents;
      return (type & wp::kInverseCounter) != 0 ? Kind::kInverse : Kind::kTimer;
    case kSubtypeFraction:
      // PERF_RAW_FRACTION is a level over its base; sample fractions (deltas of both) and the
      // averages add an amount per event of their base.
      return percent && (type & wp::kDeltaCounter) == 0 ? Kind::kFraction : Kind::kPerEvent;
    case kSubtypeElapsed:
      return Kind::kElapsed;
    case kSubtypeQueueLength:
      return Kind::kQueue;
    case kSubtypePrecision:
      return Kind::kPrecision;
    default:
      return Kind::kOther;
  }
}

// What every value of the counter is a multiple of, when it is at least 16: byte counts that
// move by pages or sectors, times that move by clock ticks (15.625 ms on the machines of the
// fixtures). Below 16 a common divisor is as likely to be chance, and 1 is returned.
uint64_t GranularityOf(uint64_t older, uint64_t newer) {
  if (older == 0 || newer == 0) return 1;
  const uint64_t divisor = std::gcd(older, newer);
  return divisor >= 16 ? divisor : 1;
}

// The clock a timestamp base follows: its value lies within a second of that clock in the older
// sample and, when there is a pair, it advanced as the clock did.
std::optional<Clock> FollowedClock(const CounterPair& value, const SampleClocks& older,
                                   const SampleClocks& newer, bool pair) {
  for (Clock clock : {Clock::k100Ns, Clock::kTick, Clock::kObject}) {
    if (clock == Clock::kObject && !older.object_known) continue;
    const int64_t frequency = older.FrequencyOf(clock);
    const int64_t at = older.Of(clock);
    if (frequency <= 0 || at <= 0) continue;
    const int64_t distance = static_cast<int64_t>(value.older) - at;
    if (std::llabs(distance) > frequency) continue;
    if (pair) {
      const int64_t advance = newer.Of(clock) - at;
      const int64_t step = static_cast<int64_t>(value.newer - value.older);
      if (std::llabs(step - advance) > advance / 100 + 1) continue;
    }
    return clock;
  }
  return std::nullopt;
}

// How far the counter's clock advanced between the samples, for timer types.
int64_t ClockAdvance(uint32_t type, const SampleClocks& older, const SampleClocks& newer) {
  const Clock clock = ClockOfType(type);
  if (clock == Clock::kObject && !older.object_known) return 0;
  return newer.Of(clock) - older.Of(clock);
}

}  // namespace

Clock ClockOfType(uint32_t type) {
  const uint32_t timer = type & wp::kTimerMask;
  return timer == wp::kTimer100Ns    ? Clock::k100Ns
         : timer == wp::kObjectTimer ? Clock::kObject
                                     : Clock::kTick;
}

ValueModel ModelCounter(const CounterPair& value, const CounterPair* previous,
                        const CounterPair* next, uint32_t position, const SampleClocks& older,
                        const SampleClocks& newer, double seconds) {
  ValueModel model;
  if (value.size != 4 && value.size != 8) return model;
  const bool pair = seconds > 0;
  const uint64_t mask = WidthMask(value.size);
  const bool moved = value.newer != value.older;
  // The forward difference in the counter's width: a 4-byte count that wrapped still moved on.
  const double step = static_cast<double>((value.newer - value.older) & mask);
  const uint64_t granularity = GranularityOf(value.older, value.newer);
  // The two motions read off a value that moved: events at its rate, or a level that wanders
  // by steps the size of its move.
  const auto count = [&] {
    model.motion = Motion::kEvents;
    model.rate = step / seconds;
    model.granularity = granularity;
  };
  const auto wander = [&] {
    model.motion = Motion::kGauge;
    model.rate = std::fabs(static_cast<double>(value.newer) - static_cast<double>(value.older)) /
                 std::sqrt(seconds);
    model.granularity = granularity;
  };

  if (IsBaseType(value.type)) {
    if (std::optional<Clock> clock = FollowedClock(value, older, newer, pair)) {
      model.motion = Motion::kClock;
      model.clock = *clock;
      model.offset = static_cast<int64_t>(value.older) - older.Of(*clock);
      return model;
    }
    // The base of an average or a sample fraction counts its events; any other (a fraction's,
    // a multi-timer's) is a level that rarely moves.
    const bool counts = previous != nullptr && KindOf(previous->type) == Kind::kPerEvent;
    model.cumulative = counts;
    if (moved && counts) {
      count();
    } else if (moved) {
      wander();
    }
    return model;
  }

  const Kind kind = KindOf(value.type);
  switch (kind) {
    case Kind::kEvents:
      model.cumulative = true;
      if (moved) count();
      return model;
    case Kind::kTimer:
    case Kind::kPrecision:
    case Kind::kInverse:
    case Kind::kQueue: {
      model.cumulative = true;
      model.clock = ClockOfType(value.type);
      double advance = static_cast<double>(ClockAdvance(value.type, older, newer));
      if (kind == Kind::kPrecision && next != nullptr) {
        // The share is of the timestamp base's advance, and the base's clock is the one to follow.
        if (std::optional<Clock> clock = FollowedClock(*next, older, newer, pair)) {
          model.clock = *clock;
          advance = static_cast<double>(newer.Of(*clock) - older.Of(*clock));
        }
      }
      if (!pair || !(advance > 0)) return model;
      const double share = step / advance;
      model.granularity = granularity;
      if (kind == Kind::kInverse) {
        // Idle time always moves (unless the processor was busy throughout): its busy share is
        // what the generated samples scale.
        model.motion = Motion::kIdleTime;
        model.rate = 1 - std::min(share, 1.0);
      } else if (moved) {
        model.motion = kind == Kind::kQueue ? Motion::kQueueTime : Motion::kBusyTime;
        // A real disk's "% Idle Time" exceeds 100% at times; generated ones do not.
        model.rate = kind == Kind::kQueue ? share : std::min(share, 1.0);
      }
      return model;
    }
    case Kind::kPerEvent: {
      model.cumulative = true;
      if (next == nullptr || !IsBaseType(next->type)) return model;
      model.motion = Motion::kPerEvent;
      model.partner = position + 1;
      const uint64_t base_mask = WidthMask(next->size);
      const double base_step = static_cast<double>((next->newer - next->older) & base_mask);
      if (base_step > 0) {
        model.rate = step / base_step;
      } else if (next->older > 0) {
        // The lifetime average, when no event happened between the samples.
        model.rate = static_cast<double>(value.older) / static_cast<double>(next->older);
      }
      if (value.type == wp::kSampleFraction) model.rate = std::min(model.rate, 1.0);
      return model;
    }
    case Kind::kElapsed: {
      const bool object_clock = older.object != 0 && older.object_freq != 0;
      if (value.older == 0 || (object_clock && !older.object_known)) return model;
      model.motion = Motion::kStartTime;
      model.clock = object_clock ? Clock::kObject : Clock::kTick;
      model.offset = older.Of(model.clock) - static_cast<int64_t>(value.older);
      return model;
    }
    case Kind::kFraction:
    case Kind::kOther:
      if (moved) wander();
      if (moved && kind == Kind::kFraction && next != nullptr && IsBaseType(next->type)) {
        model.partner = position + 1;
      }
      return model;
  }
  return model;
}

}  // namespace perfhive::fleet
