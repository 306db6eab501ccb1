#include "tests/bench/realistic_fleet/busy_server.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "tests/bench/realistic_fleet/fleet_random.h"
#include "tests/bench/realistic_fleet/thread_table.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;
namespace wp = winperf;

constexpr uint64_t kBusyStream = 0x4255'5359'0000'0000ull;  // "BUSY"
constexpr int64_t k100NsPerSecond = 10'000'000;
constexpr uint64_t kPage = 4096;

// How much copies of one program differ in size and pace (σ of the log of their factor).
constexpr double kCopySigma = 0.5;
// The processes together use at most this share of the machine's processors.
constexpr double kBusiestLoad = 0.9;
// Copies of services started at boot start within this long of their original.
constexpr int64_t kBootSpread = 60 * k100NsPerSecond;
// Processes younger than this share of the machine's uptime started after boot (as in
// host_simulator.cc, which lets the same ones come and go).
constexpr double kYoungShare = 0.9;

// Programs Windows runs once (or once per session): a busy server has no more copies of them.
constexpr std::string_view kSingletons[] = {"Idle",     "System",   "smss", "csrss",
                                            "winlogon", "services", "lsass"};

std::optional<uint32_t> PositionOf(const ObjectLayout& object, uint32_t index) {
  for (uint32_t c = 0; c < object.counters.size(); ++c) {
    if (object.counters[c].name_index == index) return c;
  }
  return std::nullopt;
}

ObjectLayout* FindObject(MachineLayout& layout, uint32_t index) {
  for (ObjectLayout& object : layout.objects) {
    if (object.name_index == index) return &object;
  }
  return nullptr;
}

bool IsTotal(const InstanceLayout& instance) { return instance.name == "_Total"; }

// The share of its clock a timer of `instance` accumulates (following a copy to its leader).
double BusyShare(const InstanceLayout& instance, std::optional<uint32_t> counter) {
  if (!counter.has_value()) return 0;
  const ValueModel* model = &instance.models[*counter];
  if (model->motion == Motion::kCopy) model = &instance.models[model->partner];
  return model->motion == Motion::kBusyTime ? model->rate : 0;
}

// `value` × `factor`, rounded down to the value's unit: its motion's lumps, else whole pages for
// a count of pages' bytes. Rounding down keeps a peak at or above its gauge.
uint64_t ScaledValue(uint64_t value, double factor, uint64_t granularity) {
  if (value == 0) return 0;
  const uint64_t unit = granularity > 1 ? granularity : value % kPage == 0 ? kPage : 1;
  const double scaled = std::floor(static_cast<double>(value) * factor / static_cast<double>(unit));
  if (!(scaled >= 0 && scaled < 1.8e19 / static_cast<double>(unit))) return value;
  return static_cast<uint64_t>(scaled) * unit;
}

// A copy of a process `factor` times the size and pace of its original: byte counts, handles,
// accumulated counts and times, and the rates they move at. IDs, priorities, thread counts,
// start times and clocks stay as they are.
void ScaleProcess(InstanceLayout& copy, const ObjectLayout& object,
                  const std::set<uint32_t>& unscaled, double factor) {
  for (uint32_t c = 0; c < copy.values.size(); ++c) {
    if (unscaled.contains(c) || copy.bytes.contains(c)) continue;
    ValueModel& model = copy.models[c];
    if (model.motion == Motion::kClock || model.motion == Motion::kStartTime ||
        model.motion == Motion::kCopy) {
      continue;
    }
    copy.values[c] =
        ScaledValue(copy.values[c], factor, model.granularity) & WidthMask(object.counters[c].size);
    switch (model.motion) {
      case Motion::kEvents:
      case Motion::kGauge:
      case Motion::kQueueTime:
        model.rate *= factor;
        break;
      case Motion::kBusyTime:
      case Motion::kIdleTime:
        model.rate = std::min(model.rate * factor, 1.0);
        break;
      default:
        break;
    }
  }
}

// Multiplies the rates of every busy timer of `instance` by `factor`; inverse and idle timers
// (whose rate is the busy share they leave) too.
void ScaleBusyShares(InstanceLayout& instance, double factor) {
  for (ValueModel& model : instance.models) {
    if (model.motion == Motion::kBusyTime || model.motion == Motion::kIdleTime) {
      model.rate = std::min(model.rate * factor, 1.0);
    }
  }
}

// How many of the values `weights` give to each, `total` in all, at least one each; the
// largest remainders round up.
std::vector<uint64_t> ThreadCounts(uint64_t total, const std::vector<uint64_t>& weights) {
  double sum = 0;
  for (uint64_t weight : weights) sum += static_cast<double>(weight);
  std::vector<uint64_t> counts(weights.size(), 1);
  if (!(sum > 0)) return counts;
  std::vector<std::pair<double, size_t>> remainders;
  uint64_t given = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double exact = static_cast<double>(total) * static_cast<double>(weights[i]) / sum;
    counts[i] = static_cast<uint64_t>(std::floor(exact));
    given += counts[i];
    remainders.emplace_back(exact - std::floor(exact), i);
  }
  std::sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (size_t k = 0; k < remainders.size() && given < total; ++k, ++given) {
    ++counts[remainders[k].second];
  }
  for (uint64_t& count : counts) count = std::max<uint64_t>(count, 1);
  return counts;
}

}  // namespace

Result<MachineLayout> MakeBusyServerLayout(const MachineLayout& base, const BusyServerShape& shape,
                                           uint64_t seed) {
  if (shape.processes > kMostBusyProcesses || shape.threads > kMostBusyThreads ||
      shape.threads < shape.processes) {
    return Status::InvalidArgument("busy servers: at most " + std::to_string(kMostBusyProcesses) +
                                   " processes and " + std::to_string(kMostBusyThreads) +
                                   " threads, and at least a thread per process");
  }
  MachineLayout layout = base;
  layout.name = "busy-" + base.name;
  // There is no real pair of this shape to compare with.
  layout.real_older.clear();
  layout.real_newer.clear();

  ObjectLayout* process = FindObject(layout, ti::kProcess);
  if (process == nullptr || process->no_instances) {
    return Status::InvalidArgument("busy servers: " + base.name + " has no Process object");
  }
  const std::optional<uint32_t> pid = PositionOf(*process, ti::kIdProcess);
  const std::optional<uint32_t> thread_count = PositionOf(*process, ti::kThreadCount);
  const std::optional<uint32_t> elapsed = PositionOf(*process, ti::kElapsedTime);
  if (!pid.has_value() || !thread_count.has_value() || !elapsed.has_value() ||
      process->clock == ObjectClock::kNone) {
    return Status::InvalidArgument("busy servers: " + base.name +
                                   "'s Process object lacks ID Process, Thread Count, Elapsed "
                                   "Time or a running clock");
  }
  const std::optional<uint32_t> processor_time = PositionOf(*process, ti::kPercentProcessorTime);

  // The real processes, and those a busy server runs more of.
  std::vector<size_t> sources;
  std::unordered_set<uint64_t> ids;
  size_t running = 0;
  uint64_t real_threads = 0;
  double real_load = 0;
  for (size_t i = 0; i < process->instances.size(); ++i) {
    const InstanceLayout& instance = process->instances[i];
    if (IsTotal(instance)) continue;
    ++running;
    ids.insert(instance.values[*pid]);
    real_threads += instance.values[*thread_count];
    if (instance.values[*pid] != 0) real_load += BusyShare(instance, processor_time);
    const bool singleton = std::find(std::begin(kSingletons), std::end(kSingletons),
                                     instance.name) != std::end(kSingletons);
    if (!singleton && instance.values[*pid] > 4) sources.push_back(i);
  }
  if (static_cast<size_t>(shape.processes) < running || sources.empty()) {
    return Status::InvalidArgument("busy servers: " + std::to_string(shape.processes) +
                                   " processes asked for; " + base.name + " already runs " +
                                   std::to_string(running));
  }

  // The copies, each of a real process picked at random.
  FleetRandom random(seed, kBusyStream);
  const std::set<uint32_t> unscaled = [&] {
    std::set<uint32_t> positions = {*pid, *thread_count, *elapsed};
    for (uint32_t index : {kPriorityBaseIndex, ti::kCreatingProcessId}) {
      if (std::optional<uint32_t> at = PositionOf(*process, index)) positions.insert(*at);
    }
    return positions;
  }();
  std::vector<InstanceLayout> copies;
  std::vector<uint64_t> source_threads;
  double copies_load = 0;
  for (size_t k = running; k < static_cast<size_t>(shape.processes); ++k) {
    const InstanceLayout& source = process->instances[sources[random.Below(sources.size())]];
    InstanceLayout copy = source;
    ScaleProcess(copy, *process, unscaled, random.LogNormalFactor(kCopySigma));
    copy.values[*pid] = DrawFreeId(random, ids);
    ValueModel& started = copy.models[*elapsed];
    if (started.motion == Motion::kStartTime) {
      // Start times count in the object's clock or the block's.
      const int64_t clock_freq =
          started.clock == Clock::kObject ? process->perf_freq : layout.perf_freq;
      const double uptime = layout.uptime_seconds() * static_cast<double>(clock_freq);
      const double age = static_cast<double>(started.offset);
      const double offset =
          age < kYoungShare * uptime
              ? age * (0.05 + 0.95 * random.Uniform())
              : age - random.Uniform() * std::min(age, static_cast<double>(kBootSpread));
      started.offset = std::llround(offset);
      // A process has not run longer than it has lived.
      for (uint32_t c = 0; c < copy.values.size(); ++c) {
        const Motion motion = copy.models[c].motion;
        if (process->counters[c].type == wp::k100NsecTimer && clock_freq == k100NsPerSecond &&
            (motion == Motion::kBusyTime || motion == Motion::kConstant)) {
          copy.values[c] = std::min<uint64_t>(copy.values[c], static_cast<uint64_t>(offset));
        }
      }
    }
    source_threads.push_back(std::max<uint64_t>(source.values[*thread_count], 1));
    copies_load += BusyShare(copy, processor_time);
    copies.push_back(std::move(copy));
  }

  // As many threads as the shape asks for: the real processes keep theirs, the copies share the
  // rest in proportion to their originals'.
  const uint64_t wanted = static_cast<uint64_t>(shape.threads);
  const std::vector<uint64_t> counts =
      ThreadCounts(wanted > real_threads ? wanted - real_threads : 0, source_threads);
  uint64_t threads = real_threads;
  for (size_t k = 0; k < copies.size(); ++k) {
    copies[k].values[*thread_count] = counts[k];
    threads += counts[k];
  }

  // The copies' CPU within what the processors can give; then the machine's idle time and the
  // processors' busy time follow the processes' total.
  const ObjectLayout* processor = FindObject(layout, ti::kProcessor);
  double processors = 0;
  if (processor != nullptr) {
    for (const InstanceLayout& instance : processor->instances) processors += !IsTotal(instance);
  }
  const double capacity = kBusiestLoad * std::max(processors, 1.0);
  if (copies_load > 0 && real_load + copies_load > capacity) {
    const double scale = std::max(capacity - real_load, 0.0) / copies_load;
    for (InstanceLayout& copy : copies) ScaleBusyShares(copy, scale);
    copies_load *= scale;
  }
  const double load_ratio = real_load > 0 ? (real_load + copies_load) / real_load : 1;

  // The copies join the process list before _Total, which is last.
  auto total = std::find_if(process->instances.begin(), process->instances.end(), IsTotal);
  const size_t total_at = static_cast<size_t>(total - process->instances.begin());
  process->instances.insert(process->instances.begin() + static_cast<std::ptrdiff_t>(total_at),
                            std::make_move_iterator(copies.begin()),
                            std::make_move_iterator(copies.end()));
  // A process's threads are the Thread object's instances: its count holds still.
  for (InstanceLayout& instance : process->instances) {
    instance.models[*thread_count] = ValueModel();
    if (IsTotal(instance)) instance.values[*thread_count] = threads;
    if (instance.values[*pid] == 0 && !IsTotal(instance)) ScaleBusyShares(instance, load_ratio);
  }

  if (ObjectLayout* system = FindObject(layout, ti::kSystem);
      system != nullptr && !system->instances.empty()) {
    InstanceLayout& totals = system->instances[0];
    if (std::optional<uint32_t> at = PositionOf(*system, ti::kProcesses)) {
      totals.values[*at] += static_cast<uint64_t>(shape.processes) - running;
    }
    if (std::optional<uint32_t> at = PositionOf(*system, ti::kThreads)) {
      totals.values[*at] = threads;
    }
    // More threads waking, more context switches.
    if (std::optional<uint32_t> at = PositionOf(*system, ti::kContextSwitchesPerSec);
        at.has_value() && real_threads > 0 && totals.models[*at].motion == Motion::kEvents) {
      totals.models[*at].rate *= static_cast<double>(threads) / static_cast<double>(real_threads);
    }
  }
  if (ObjectLayout* cpus = FindObject(layout, ti::kProcessor)) {
    for (InstanceLayout& instance : cpus->instances) ScaleBusyShares(instance, load_ratio);
  }

  // The Thread object, right after Process as Windows' process provider writes them, on
  // Process's clock (its Elapsed Times are start times in that clock).
  ObjectLayout thread{.name_index = ti::kThread,
                      .help_index = kThreadObjectHelp,
                      .detail_level = wp::kDetailNovice,
                      .default_counter = 0,
                      .perf_time = process->perf_time,
                      .perf_freq = process->perf_freq,
                      .clock = process->clock,
                      .clock_offset = process->clock_offset,
                      .counters = ThreadCounterSpecs(),
                      .generated_threads = true};
  const auto after =
      std::find_if(layout.objects.begin(), layout.objects.end(),
                   [](const ObjectLayout& o) { return o.name_index == ti::kProcess; });
  layout.objects.insert(after + 1, std::move(thread));
  return layout;
}

}  // namespace perfhive::fleet
