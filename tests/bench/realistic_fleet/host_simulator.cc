#include "tests/bench/realistic_fleet/host_simulator.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <initializer_list>
#include <limits>
#include <set>
#include <unordered_map>

#include "perfdata/snapshot_builder.h"
#include "perfdata/well_known_indexes.h"
#include "sources/procfs/sample_clock.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;

// How busy a host is swings slowly (minutes), each instance varies from sample to sample, and
// each count a little more on top: standard deviations of the logarithm.
constexpr double kActivitySigma = 0.4;
constexpr double kActivitySeconds = 300;
constexpr double kInstanceSigma = 0.3;
constexpr double kEventSigma = 0.2;
constexpr double kPerEventSigma = 0.15;
// Gauges drift back to their real value over about ten minutes.
constexpr double kGaugeReturnSeconds = 600;
// A real agent's timer fires a few milliseconds early or late.
constexpr int64_t kMaxJitterNs = 2'000'000;
// Processes younger than this share of the real machine's uptime started after boot, and are
// the kind that come and go.
constexpr double kYoungShare = 0.9;
// Names a newly installed provider brings: its object and this many counters.
constexpr uint64_t kProviderCounters = 8;

constexpr int64_t kNsPerSecond = 1'000'000'000;
constexpr int64_t k100NsPerSecond = 10'000'000;

// `value` × `scale`, rounded, in the counter's width (a value beyond 64 bits is kept as it is).
uint64_t Scaled(uint64_t value, double scale, uint64_t mask) {
  const double scaled = std::round(static_cast<double>(value) * scale);
  if (!(scaled >= 0 && scaled < 18446744073709551616.0)) return value;
  return static_cast<uint64_t>(scaled) & mask;
}

// `share` of `advance`, rounded: never more than the advance for a share up to 1.
uint64_t Portion(double share, int64_t advance) {
  if (advance <= 0 || !(share > 0)) return 0;
  return static_cast<uint64_t>(std::llround(share * static_cast<double>(advance)));
}

SystemTime SystemTimeOfFiletime(int64_t filetime) {
  timespec time{};
  time.tv_sec = static_cast<time_t>(filetime / k100NsPerSecond - kFiletimeUnixEpochSeconds);
  time.tv_nsec = static_cast<long>(filetime % k100NsPerSecond * 100);
  return SystemTimeFromTimespec(time);
}

std::optional<uint32_t> PositionOf(const std::vector<CounterSpec>& counters, uint32_t index) {
  for (uint32_t c = 0; c < counters.size(); ++c) {
    if (counters[c].name_index == index) return c;
  }
  return std::nullopt;
}

bool IsTotal(const std::string& name) { return name == "_Total"; }

// The clock tick the timers of a process move by: the lumps of the first of `timers` that
// moves (following a copy to its leader), or 1.
uint64_t TickOf(const InstanceLayout& instance,
                std::initializer_list<std::optional<uint32_t>> timers) {
  for (std::optional<uint32_t> counter : timers) {
    if (!counter.has_value()) continue;
    const ValueModel* model = &instance.models[*counter];
    if (model->motion == Motion::kCopy) model = &instance.models[model->partner];
    if (model->motion == Motion::kBusyTime || model->motion == Motion::kIdleTime) {
      return model->granularity;
    }
  }
  return 1;
}

}  // namespace

HostSimulator::HostSimulator(std::shared_ptr<const std::vector<MachineLayout>> layouts,
                             HostProfile profile, const FleetOptions& options, uint64_t seed)
    : layouts_(std::move(layouts)),
      profile_(std::move(profile)),
      options_(options),
      random_(seed, static_cast<uint64_t>(profile_.index)),
      titles_(layout().titles, layout().names) {
  const MachineLayout& machine = layout();
  start_perf_time_ = std::llround(static_cast<double>(machine.perf_time) * profile_.uptime_scale);
  perf_time_ = start_perf_time_;
  perf_time_100ns_ = profile_.start_filetime;
  log_activity_ = kActivitySigma * random_.Normal();

  for (const ObjectLayout& source : machine.objects) {
    LiveObject object{.source = &source,
                      .name_index = source.name_index,
                      .help_index = source.help_index,
                      .counters = source.counters};
    object.clock = ObjectClockAt(object);
    for (const InstanceLayout& instance : source.instances) {
      object.instances.push_back(StartInstance(object, instance, false));
    }
    SetUpProcesses(object);
    objects_.push_back(std::move(object));
  }

  const bool processes = std::any_of(objects_.begin(), objects_.end(),
                                     [](const LiveObject& o) { return o.pid_counter.has_value(); });
  for (size_t i = 0; i < objects_.size() && processes; ++i) {
    if (objects_[i].name_index != ti::kSystem || objects_[i].instances.empty()) continue;
    system_object_ = i;
    processes_counter_ = PositionOf(objects_[i].counters, ti::kProcesses);
    threads_counter_ = PositionOf(objects_[i].counters, ti::kThreads);
    break;
  }
  for (size_t i = 0; i < objects_.size(); ++i) {
    if (objects_[i].source->generated_threads) thread_object_ = i;
    if (objects_[i].name_index == ti::kProcess && objects_[i].pid_counter.has_value()) {
      process_object_ = i;
    }
  }
  // A Thread object is made from the processes; without them it stays empty.
  if (thread_object_.has_value() && process_object_.has_value()) {
    SetUpThreads();
  } else {
    thread_object_.reset();
  }
}

int64_t HostSimulator::ObjectClockAt(const LiveObject& object) const {
  switch (object.source->clock) {
    case ObjectClock::kTick:
      return perf_time_ + object.source->clock_offset;
    case ObjectClock::k100Ns:
      return perf_time_100ns_ + object.source->clock_offset;
    case ObjectClock::kNone:
      break;
  }
  return object.source->perf_time;
}

HostSimulator::LiveInstance HostSimulator::StartInstance(const LiveObject& object,
                                                         const InstanceLayout& source,
                                                         bool started_now) {
  LiveInstance live{.source = &source,
                    .name = source.name,
                    .unique_id = source.unique_id,
                    .parent_object_index = source.parent_object_index,
                    .parent_instance = source.parent_instance,
                    .values = source.values,
                    .churns = started_now};
  const double scale = profile_.uptime_scale;
  for (uint32_t c = 0; c < live.values.size(); ++c) {
    const ValueModel& model = source.models[c];
    uint64_t& value = live.values[c];
    const int64_t now = ClocksNow(object).Of(model.clock);
    if (model.motion == Motion::kClock) {
      value = static_cast<uint64_t>(now + model.offset);
    } else if (model.motion == Motion::kStartTime && started_now) {
      // It started during the interval that just ended.
      value = static_cast<uint64_t>(now) -
              Portion(random_.Uniform(), ClocksAdvance(object).Of(model.clock));
    } else if (model.motion == Motion::kStartTime) {
      // As long before this host's first sample, on its scale, as before the real one's.
      value = static_cast<uint64_t>(now - std::llround(static_cast<double>(model.offset) * scale));
    } else if (model.cumulative && model.motion != Motion::kCopy) {
      // A new process has counted nothing yet; a running one as much as its uptime brought.
      value = started_now ? 0 : Scaled(value, scale, WidthMask(object.counters[c].size));
    }
  }
  CopyLinked(object, live);
  return live;
}

void HostSimulator::SetUpProcesses(LiveObject& object) {
  const ObjectLayout& source = *object.source;
  // Threads carry their process's ID too; they come and go with it.
  if (source.no_instances || source.generated_threads) return;
  object.pid_counter = PositionOf(object.counters, ti::kIdProcess);
  if (!object.pid_counter.has_value()) return;
  object.thread_counter = PositionOf(object.counters, ti::kThreadCount);
  const std::optional<uint32_t> elapsed = PositionOf(object.counters, ti::kElapsedTime);

  std::vector<const InstanceLayout*> eligible;
  for (LiveInstance& instance : object.instances) {
    const uint64_t pid = instance.values[*object.pid_counter];
    pids_.insert(pid);
    // The idle and system processes (PIDs 0 and 4) and _Total are always there.
    if (IsTotal(instance.name) || pid <= 4) continue;
    eligible.push_back(instance.source);
    bool young = true;
    if (elapsed.has_value()) {
      const ValueModel& started = instance.source->models[*elapsed];
      if (started.motion == Motion::kStartTime) {
        const double freq = static_cast<double>(
            started.clock == Clock::kObject ? source.perf_freq : layout().perf_freq);
        young =
            static_cast<double>(started.offset) < kYoungShare * layout().uptime_seconds() * freq;
      }
    }
    if (young) {
      instance.churns = true;
      object.templates.push_back(instance.source);
      ++object.churn_target;
    }
  }
  if (object.templates.empty()) object.templates = eligible;
  object.churn_target = std::max<size_t>(object.churn_target, 1);
}

GeneratedSample HostSimulator::Next() {
  GeneratedSample sample;
  if (samples_ > 0) sample.titles_changed = Advance();
  sample.snapshot = Build();
  ++samples_;
  return sample;
}

bool HostSimulator::Advance() {
  const int64_t interval = options_.interval_ns;
  const int64_t jitter = std::min(kMaxJitterNs, interval / 20);
  int64_t step_ns = interval;
  if (jitter > 0) {
    step_ns += static_cast<int64_t>(random_.Below(static_cast<uint64_t>(2 * jitter + 1))) - jitter;
  }
  elapsed_ns_ += step_ns;
  const int64_t freq = layout().perf_freq;
  // Whole seconds and the rest apart, so the product cannot overflow.
  const int64_t perf_time = start_perf_time_ + elapsed_ns_ / kNsPerSecond * freq +
                            elapsed_ns_ % kNsPerSecond * freq / kNsPerSecond;
  const int64_t ns100 = profile_.start_filetime + elapsed_ns_ / 100;
  tick_advance_ = perf_time - perf_time_;
  ns100_advance_ = ns100 - perf_time_100ns_;
  perf_time_ = perf_time;
  perf_time_100ns_ = ns100;
  const double seconds = static_cast<double>(step_ns) / kNsPerSecond;

  const double keep = std::exp(-seconds / kActivitySeconds);
  log_activity_ =
      keep * log_activity_ + std::sqrt(1 - keep * keep) * kActivitySigma * random_.Normal();
  const double activity =
      profile_.activity * std::exp(log_activity_ - 0.5 * kActivitySigma * kActivitySigma);

  bool titles_changed = false;
  if (options_.title_change_probability > 0 &&
      random_.Uniform() < options_.title_change_probability) {
    ChangeTitles();
    titles_changed = true;
  }
  for (LiveObject& object : objects_) {
    const int64_t clock = ObjectClockAt(object);
    object.clock_advance = clock - object.clock;
    object.clock = clock;
    if (object.pid_counter.has_value()) Churn(object, seconds);
    for (LiveInstance& instance : object.instances) {
      Move(object, instance, seconds, activity * random_.LogNormalFactor(kInstanceSigma));
    }
  }
  if (thread_object_.has_value()) StepThreads();
  return titles_changed;
}

void HostSimulator::SetUpThreads() {
  const LiveObject& processes = objects_[*process_object_];
  user_counter_ = PositionOf(processes.counters, ti::kPercentUserTime);
  privileged_counter_ = PositionOf(processes.counters, ti::kPercentPrivilegedTime);
  priority_counter_ = PositionOf(processes.counters, kPriorityBaseIndex);
  elapsed_counter_ = PositionOf(processes.counters, ti::kElapsedTime);
  uint64_t threads = 0;
  for (const LiveInstance& instance : processes.instances) {
    if (!IsTotal(instance.name) && processes.thread_counter.has_value()) {
      threads += instance.values[*processes.thread_counter];
    }
  }
  // A thread's average context-switch rate, which the counts its threads have reached since
  // they were created follow.
  if (system_object_.has_value()) {
    const LiveObject& system = objects_[*system_object_];
    switches_counter_ = PositionOf(system.counters, ti::kContextSwitchesPerSec);
    if (switches_counter_.has_value() && threads > 0) {
      const ValueModel& model = system.instances[0].source->models[*switches_counter_];
      if (model.motion == Motion::kEvents) {
        switches_per_thread_ = model.rate * profile_.activity / static_cast<double>(threads);
      }
    }
  }
  const int64_t now = objects_[*thread_object_].clock;
  for (const LiveInstance& instance : processes.instances) {
    if (IsTotal(instance.name)) continue;
    threads_.AddProcess(ThreadsOf(processes, instance), now, switches_per_thread_, random_, pids_);
  }
}

ProcessThreadsStart HostSimulator::ThreadsOf(const LiveObject& object,
                                             const LiveInstance& process) const {
  const auto value = [&](std::optional<uint32_t> counter, uint64_t otherwise) {
    return counter.has_value() ? process.values[*counter] : otherwise;
  };
  return {.pid = process.values[*object.pid_counter],
          .threads = static_cast<uint32_t>(value(object.thread_counter, 1)),
          .priority_base = static_cast<uint32_t>(value(priority_counter_, 8)),
          .created = static_cast<int64_t>(
              value(elapsed_counter_, static_cast<uint64_t>(objects_[*thread_object_].clock))),
          .user_time = value(user_counter_, 0),
          .privileged_time = value(privileged_counter_, 0),
          .tick = TickOf(*process.source, {user_counter_, privileged_counter_})};
}

void HostSimulator::StepThreads() {
  const LiveObject& processes = objects_[*process_object_];
  const auto moved = [](const LiveObject& object, const LiveInstance& instance,
                        std::optional<uint32_t> counter) -> uint64_t {
    if (!counter.has_value() || instance.previous.size() != instance.values.size()) return 0;
    return (instance.values[*counter] - instance.previous[*counter]) &
           WidthMask(object.counters[*counter].size);
  };
  std::vector<ProcessStep> steps;
  steps.reserve(processes.instances.size());
  for (const LiveInstance& instance : processes.instances) {
    if (IsTotal(instance.name)) continue;
    steps.push_back({.pid = instance.values[*processes.pid_counter],
                     .user_time = moved(processes, instance, user_counter_),
                     .privileged_time = moved(processes, instance, privileged_counter_),
                     .tick = TickOf(*instance.source, {user_counter_, privileged_counter_})});
  }
  uint64_t switches = 0;
  if (switches_counter_.has_value()) {
    const LiveObject& system = objects_[*system_object_];
    switches = moved(system, system.instances[0], switches_counter_);
  }
  threads_.Advance(steps, switches, objects_[*thread_object_].clock_advance, random_);
}

void HostSimulator::WriteThreads(ObjectBuilder& out) const {
  const LiveObject& processes = objects_[*process_object_];
  std::unordered_map<uint64_t, uint32_t> positions;
  uint32_t total = static_cast<uint32_t>(processes.instances.size());
  for (uint32_t at = 0; at < processes.instances.size(); ++at) {
    const LiveInstance& instance = processes.instances[at];
    if (IsTotal(instance.name)) {
      total = at;
    } else {
      positions.emplace(instance.values[*processes.pid_counter], at);
    }
  }
  threads_.Write(out, positions, total, objects_[*thread_object_].clock);
}

void HostSimulator::Churn(LiveObject& object, double seconds) {
  const double starts_per_second = options_.process_starts_per_minute / 60;
  if (!(starts_per_second > 0) || object.templates.empty()) return;
  const double exit_chance = starts_per_second * seconds / static_cast<double>(object.churn_target);
  for (auto it = object.instances.begin(); it != object.instances.end();) {
    if (it->churns && random_.Uniform() < exit_chance) {
      CountProcess(object, *it, -1);
      if (thread_object_.has_value()) {
        threads_.RemoveProcess(it->values[*object.pid_counter], pids_);
      }
      pids_.erase(it->values[*object.pid_counter]);
      it = object.instances.erase(it);
    } else {
      ++it;
    }
  }
  for (uint64_t starts = random_.Poisson(starts_per_second * seconds); starts > 0; --starts) {
    StartProcess(object);
  }
}

void HostSimulator::StartProcess(LiveObject& object) {
  const InstanceLayout& source = *object.templates[random_.Below(object.templates.size())];
  LiveInstance live = StartInstance(object, source, true);
  live.values[*object.pid_counter] = DrawFreeId(random_, pids_);
  CountProcess(object, live, +1);
  if (thread_object_.has_value()) {
    threads_.AddProcess(ThreadsOf(object, live), ObjectClockAt(objects_[*thread_object_]),
                        switches_per_thread_, random_, pids_);
  }
  auto at = object.instances.end();
  if (!object.instances.empty() && IsTotal(object.instances.back().name)) --at;
  object.instances.insert(at, std::move(live));
}

void HostSimulator::CountProcess(const LiveObject& object, const LiveInstance& process, int sign) {
  if (!system_object_.has_value()) return;
  LiveObject& system = objects_[*system_object_];
  LiveInstance& totals = system.instances[0];
  const auto add = [&](uint32_t counter, uint64_t amount) {
    const uint64_t signed_amount = sign > 0 ? amount : 0 - amount;
    totals.values[counter] =
        (totals.values[counter] + signed_amount) & WidthMask(system.counters[counter].size);
  };
  if (processes_counter_.has_value()) add(*processes_counter_, 1);
  if (threads_counter_.has_value() && object.thread_counter.has_value()) {
    add(*threads_counter_, process.values[*object.thread_counter]);
  }
}

void HostSimulator::Move(const LiveObject& object, LiveInstance& instance, double seconds,
                         double activity) {
  instance.previous = instance.values;
  const InstanceLayout& source = *instance.source;
  std::vector<uint64_t>& values = instance.values;
  const auto wander = [&](uint32_t c, const ValueModel& model, uint64_t mask) {
    const double value = static_cast<double>(values[c]);
    const double pull = 1 - std::exp(-seconds / kGaugeReturnSeconds);
    const double granularity = static_cast<double>(model.granularity);
    double next = value + pull * (static_cast<double>(source.values[c]) - value) +
                  model.rate * std::sqrt(seconds * activity) * random_.Normal();
    next = std::clamp(std::round(next / granularity) * granularity, 0.0, static_cast<double>(mask));
    return std::min(static_cast<uint64_t>(next), mask);
  };

  // `amount` of time in whole clock ticks of the counter (rounded up or down at random, so that
  // it adds up right), at most `limit`: a timer cannot count more time than passed.
  const auto ticks = [&](double amount, const ValueModel& model, int64_t limit) -> uint64_t {
    if (!(amount > 0) || limit <= 0) return 0;
    const double granularity = static_cast<double>(model.granularity);
    const double whole = std::floor(amount / granularity);
    const double count = whole + (random_.Uniform() < amount / granularity - whole ? 1 : 0);
    const double most = std::floor(static_cast<double>(limit) / granularity);
    return static_cast<uint64_t>(std::min(count, most)) * model.granularity;
  };
  // Timers scale together, and no further than the busiest reaches 100%: % User Time and
  // % Privileged Time keep adding up to % Processor Time.
  double busiest = 0;
  for (const ValueModel& model : source.models) {
    if (model.motion == Motion::kBusyTime || model.motion == Motion::kIdleTime) {
      busiest = std::max(busiest, model.rate);
    }
  }
  const double timer_activity = busiest > 0 ? std::min(activity, 1 / busiest) : activity;
  for (uint32_t c = 0; c < values.size(); ++c) {
    const ValueModel& model = source.models[c];
    const uint64_t mask = WidthMask(object.counters[c].size);
    uint64_t& value = values[c];
    switch (model.motion) {
      case Motion::kEvents: {
        const double lumps = model.rate * seconds * activity *
                             random_.LogNormalFactor(kEventSigma) /
                             static_cast<double>(model.granularity);
        value = (value + random_.Poisson(lumps) * model.granularity) & mask;
        break;
      }
      case Motion::kBusyTime: {
        const int64_t advance = ClocksAdvance(object).Of(model.clock);
        const double busy = std::min(model.rate * timer_activity, 1.0);
        value = (value + ticks(busy * static_cast<double>(advance), model, advance)) & mask;
        break;
      }
      case Motion::kIdleTime: {
        const int64_t advance = ClocksAdvance(object).Of(model.clock);
        const double idle = 1 - std::min(model.rate * timer_activity, 1.0);
        value = (value + ticks(idle * static_cast<double>(advance), model, advance)) & mask;
        break;
      }
      case Motion::kQueueTime: {
        const int64_t advance = ClocksAdvance(object).Of(model.clock);
        const double queued = model.rate * activity * static_cast<double>(advance);
        value = (value + ticks(queued, model, std::numeric_limits<int64_t>::max())) & mask;
        break;
      }
      case Motion::kClock:
        value = static_cast<uint64_t>(ClocksNow(object).Of(model.clock) + model.offset) & mask;
        break;
      case Motion::kGauge:
        if (model.partner == kNoPartner) value = wander(c, model, mask);
        break;
      default:
        break;
    }
  }
  CopyLinked(object, instance);
  // Then what depends on other counters' new values.
  for (uint32_t c = 0; c < values.size(); ++c) {
    const ValueModel& model = source.models[c];
    const uint64_t mask = WidthMask(object.counters[c].size);
    switch (model.motion) {
      case Motion::kPerEvent: {
        const uint64_t events = (values[model.partner] - instance.previous[model.partner]) &
                                WidthMask(object.counters[model.partner].size);
        uint64_t amount = static_cast<uint64_t>(std::llround(
            static_cast<double>(events) * model.rate * random_.LogNormalFactor(kPerEventSigma)));
        if (object.counters[c].type == winperf::kSampleFraction) amount = std::min(amount, events);
        values[c] = (values[c] + amount) & mask;
        break;
      }
      case Motion::kPeak:
        values[c] = std::max(values[c], values[model.partner]);
        break;
      case Motion::kGauge:
        if (model.partner != kNoPartner) {
          values[c] = std::min(wander(c, model, mask), values[model.partner]);
        }
        break;
      default:
        break;
    }
  }
  CopyLinked(object, instance);
}

void HostSimulator::CopyLinked(const LiveObject& object, LiveInstance& instance) const {
  const std::vector<ValueModel>& models = instance.source->models;
  for (uint32_t c = 0; c < instance.values.size(); ++c) {
    if (models[c].motion != Motion::kCopy) continue;
    // A copy's leader is never a copy itself, so one pass settles every copy.
    instance.values[c] = instance.values[models[c].partner] & WidthMask(object.counters[c].size);
  }
}

void HostSimulator::ChangeTitles() {
  const uint32_t base = titles_.base_index();
  std::vector<size_t> extensible;
  for (size_t i = 0; i < objects_.size(); ++i) {
    if (base > 0 && objects_[i].name_index >= base) extensible.push_back(i);
  }
  if (extensible.empty()) {
    titles_.Install(kProviderCounters, ++installs_);
    return;
  }
  // The provider's own indexes move (those below the base belong to the system and stay, even
  // when a provider's counters use them), and every object that uses them follows.
  const LiveObject& chosen = objects_[extensible[random_.Below(extensible.size())]];
  std::set<uint32_t> indexes = {chosen.name_index};
  for (const CounterSpec& counter : chosen.counters) {
    if (counter.name_index >= base) indexes.insert(counter.name_index);
  }
  const std::map<uint32_t, uint32_t> moved = titles_.Reregister(indexes);
  const auto move = [&](uint32_t& name, uint32_t& help) {
    auto to = moved.find(name);
    if (to == moved.end()) return;
    name = to->second;
    help = to->second + 1;
  };
  for (LiveObject& object : objects_) {
    move(object.name_index, object.help_index);
    for (CounterSpec& counter : object.counters) move(counter.name_index, counter.help_index);
    for (LiveInstance& instance : object.instances) {
      auto to = moved.find(instance.parent_object_index);
      if (to != moved.end()) instance.parent_object_index = to->second;
    }
  }
}

std::vector<uint8_t> HostSimulator::Build() const {
  const MachineLayout& machine = layout();
  SnapshotBuilder builder;
  builder.set_system_name(profile_.name)
      .set_system_time(SystemTimeOfFiletime(perf_time_100ns_))
      .set_perf_time(perf_time_)
      .set_perf_freq(machine.perf_freq)
      .set_perf_time_100ns(perf_time_100ns_)
      .set_default_object(machine.default_object);
  for (const LiveObject& object : objects_) {
    const ObjectLayout& source = *object.source;
    ObjectBuilder& out = builder.AddObject(object.name_index);
    out.set_help_index(object.help_index)
        .set_detail_level(source.detail_level)
        .set_default_counter(source.default_counter)
        .set_code_page(source.code_page)
        .set_perf_time(object.clock)
        .set_perf_freq(source.perf_freq);
    for (const CounterSpec& counter : object.counters) out.AddCounter(counter);
    if (source.generated_threads && thread_object_.has_value()) {
      WriteThreads(out);
      continue;
    }
    if (source.no_instances) out.set_no_instances();
    for (const LiveInstance& instance : object.instances) {
      const uint32_t at = source.no_instances ? 0
                                              : out.AddInstance(instance.name, instance.unique_id,
                                                                instance.parent_object_index,
                                                                instance.parent_instance);
      for (uint32_t c = 0; c < instance.values.size(); ++c) {
        auto bytes = instance.source->bytes.find(c);
        if (bytes != instance.source->bytes.end()) {
          out.SetBytes(at, c, bytes->second);
        } else {
          out.SetValue(at, c, instance.values[c]);
        }
      }
    }
  }
  return builder.Build();
}

}  // namespace perfhive::fleet
