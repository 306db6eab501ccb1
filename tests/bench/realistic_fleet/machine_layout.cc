#include "tests/bench/realistic_fleet/machine_layout.h"

#include <cstdlib>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"
#include "perfdata/title_list.h"
#include "perfdata/well_known_indexes.h"
#include "tests/bench/realistic_fleet/sample_pairing.h"

namespace perfhive::fleet {
namespace {

namespace ti = title_index;

constexpr int64_t kSecondsPerDay = 86'400;
constexpr int64_t k100NsPerSecond = 10'000'000;
// Values this small are equal by chance too often to say that two counters are one.
constexpr uint64_t kSmallestCopy = 256;

// What an object's PerfTime is: PerfTime100nSec or PerfTime plus an offset of less than a day,
// or neither (0, or a constant some providers write).
ObjectClock ClassifyObjectClock(const SnapshotReader& snapshot, const ObjectView& object,
                                int64_t* offset) {
  const int64_t time = object.perf_time(), freq = object.perf_freq();
  if (time == 0 || freq == 0) return ObjectClock::kNone;
  if (freq == k100NsPerSecond &&
      std::llabs(time - snapshot.perf_time_100ns()) <= kSecondsPerDay * k100NsPerSecond) {
    *offset = time - snapshot.perf_time_100ns();
    return ObjectClock::k100Ns;
  }
  if (freq == snapshot.perf_freq() &&
      std::llabs(time - snapshot.perf_time()) <= kSecondsPerDay * snapshot.perf_freq()) {
    *offset = time - snapshot.perf_time();
    return ObjectClock::kTick;
  }
  return ObjectClock::kNone;
}

SampleClocks ClocksOf(const SnapshotReader& snapshot, const ObjectView& object, bool known) {
  return {.tick = snapshot.perf_time(),
          .tick_freq = snapshot.perf_freq(),
          .ns100 = snapshot.perf_time_100ns(),
          .object = object.perf_time(),
          .object_freq = object.perf_freq(),
          .object_known = known};
}

std::string NameOf(const ObjectView& object, const InstanceView& instance) {
  if (object.code_page() == 0) return InstanceName(object, instance);
  // Names in a code page are written back as the bytes they were.
  std::span<const uint8_t> raw = instance.raw_name();
  std::string name(raw.begin(), raw.end());
  return name.substr(0, name.find('\0'));
}

// Counters that were equal in both samples, and moved, are one value (% Idle Time and the
// inverse % Processor Time; a disk's transfers and its averages' base; providers that point
// several definitions at the same bytes). The group follows one of them: a counter that only
// grows, if there is one, so that none of them goes backwards.
void LinkCopies(InstanceLayout& instance, const std::vector<uint64_t>& newer) {
  const size_t count = instance.values.size();
  std::vector<bool> grouped(count, false);
  for (size_t first = 0; first < count; ++first) {
    const uint64_t older = instance.values[first];
    if (grouped[first] || older == newer[first] || older < kSmallestCopy) continue;
    std::vector<size_t> group;
    for (size_t other = first; other < count; ++other) {
      if (instance.values[other] == older && newer[other] == newer[first]) group.push_back(other);
    }
    if (group.size() < 2) continue;
    size_t leader = group.front();
    for (size_t member : group) {
      if (instance.models[member].cumulative) {
        leader = member;
        break;
      }
    }
    for (size_t member : group) {
      grouped[member] = true;
      if (member == leader) continue;
      instance.models[member] = {.motion = Motion::kCopy,
                                 .cumulative = instance.models[member].cumulative,
                                 .partner = static_cast<uint32_t>(leader)};
    }
  }
}

// "Virtual Bytes Peak" is the largest "Virtual Bytes" has been.
void LinkPeaks(ObjectLayout& object, const std::map<uint32_t, std::string>& names) {
  constexpr std::string_view kSuffix = " Peak";
  std::unordered_map<std::string, uint32_t> positions;
  for (uint32_t c = 0; c < object.counters.size(); ++c) {
    auto name = names.find(object.counters[c].name_index);
    if (name != names.end()) positions.emplace(name->second, c);
  }
  for (uint32_t c = 0; c < object.counters.size(); ++c) {
    auto name = names.find(object.counters[c].name_index);
    if (name == names.end() || !std::string_view(name->second).ends_with(kSuffix)) continue;
    auto gauge = positions.find(name->second.substr(0, name->second.size() - kSuffix.size()));
    if (gauge == positions.end()) continue;
    for (InstanceLayout& instance : object.instances) {
      ValueModel& model = instance.models[c];
      if (model.motion != Motion::kConstant && model.motion != Motion::kGauge) continue;
      if (instance.bytes.contains(c) || instance.bytes.contains(gauge->second)) continue;
      model = {.motion = Motion::kPeak, .partner = gauge->second};
    }
  }
}

// Whether a timer counts time spent idle: "% Idle Time", the processor's "% C1 Time" to
// "% C3 Time" (sleep states).
bool IsIdleTimerName(std::string_view name) {
  if (name.find("Idle") != std::string_view::npos) return true;
  return name.size() == 9 && name.starts_with("% C") && name.ends_with(" Time") && name[3] >= '0' &&
         name[3] <= '9';
}

// Timers of idle time, and every timer of the Idle process, count what the busy ones leave:
// they are generated as inverse timers are, so that a busier host shows less of them.
void MarkIdleTimers(ObjectLayout& object, const std::map<uint32_t, std::string>& names) {
  bool processes = false;
  std::vector<bool> idle(object.counters.size(), false);
  for (uint32_t c = 0; c < object.counters.size(); ++c) {
    processes = processes || object.counters[c].name_index == ti::kIdProcess;
    auto name = names.find(object.counters[c].name_index);
    idle[c] = name != names.end() && IsIdleTimerName(name->second);
  }
  for (InstanceLayout& instance : object.instances) {
    const bool idle_process = processes && instance.name == "Idle";
    for (uint32_t c = 0; c < object.counters.size(); ++c) {
      ValueModel& model = instance.models[c];
      if (model.motion != Motion::kBusyTime || !(idle[c] || idle_process)) continue;
      model.motion = Motion::kIdleTime;
      model.rate = 1 - model.rate;
    }
  }
}

// Adds the objects of one reply to `layout`.
Status AddReply(const RealReply& reply, MachineLayout& layout) {
  Result<SnapshotReader> older = SnapshotReader::Open(reply.older);
  if (!older.ok()) return older.status();
  std::optional<SnapshotReader> newer;
  if (!reply.newer.empty()) {
    Result<SnapshotReader> opened = SnapshotReader::Open(reply.newer);
    if (!opened.ok()) return opened.status();
    newer = *opened;
  }
  const double seconds = newer.has_value() && older->perf_freq() > 0
                             ? static_cast<double>(newer->perf_time() - older->perf_time()) /
                                   static_cast<double>(older->perf_freq())
                             : 0;
  if (layout.objects.empty()) {
    layout.system_name = older->system_name();
    layout.perf_time = older->perf_time();
    layout.perf_freq = older->perf_freq();
    layout.perf_time_100ns = older->perf_time_100ns();
    layout.default_object = older->default_object();
    layout.pair_seconds = seconds;
  }

  for (const ObjectView& object : older->objects()) {
    ObjectLayout out{.name_index = object.name_index(),
                     .help_index = object.help_index(),
                     .detail_level = object.detail_level(),
                     .default_counter = object.default_counter(),
                     .code_page = object.code_page(),
                     .no_instances = object.num_instances() == winperf::kNoInstances,
                     .perf_time = object.perf_time(),
                     .perf_freq = object.perf_freq()};
    out.clock = ClassifyObjectClock(*older, object, &out.clock_offset);
    std::vector<CounterDefinitionView> definitions(object.counters().begin(),
                                                   object.counters().end());
    for (const CounterDefinitionView& counter : definitions) {
      out.counters.push_back({.name_index = counter.name_index(),
                              .type = counter.type(),
                              .size = counter.size(),
                              .help_index = counter.help_index(),
                              .default_scale = counter.default_scale(),
                              .detail_level = counter.detail_level()});
    }

    // The newer sample's instances of the same object, by key.
    std::optional<ObjectView> later;
    std::unordered_map<std::string, InstanceView> later_instances;
    if (newer.has_value()) {
      later = newer->FindObject(object.name_index());
      if (later.has_value() && SameDefinitions(object, *later)) {
        later_instances = InstancesByKey(*newer, *later);
      }
    }
    const bool known = out.clock != ObjectClock::kNone;
    const SampleClocks older_clocks = ClocksOf(*older, object, known);
    const SampleClocks newer_clocks =
        later.has_value() ? ClocksOf(*newer, *later, known) : older_clocks;

    std::vector<std::string> keys = InstanceKeys(*older, object);
    size_t at = 0;
    for (const InstanceView& instance : object.instances()) {
      InstanceLayout in{.name = NameOf(object, instance),
                        .unique_id = instance.unique_id(),
                        .parent_object_index = instance.parent_object_index(),
                        .parent_instance = instance.parent_instance()};
      auto match = later_instances.find(keys[at++]);
      const bool paired = match != later_instances.end();
      std::vector<CounterPair> pairs;
      for (uint32_t c = 0; c < definitions.size(); ++c) {
        const CounterDefinitionView& counter = definitions[c];
        std::optional<uint64_t> value = instance.counters().Value(counter);
        if (!value.has_value()) {
          std::span<const uint8_t> bytes = instance.counters().Bytes(counter);
          in.bytes.emplace(c, std::vector<uint8_t>(bytes.begin(), bytes.end()));
        }
        CounterPair pair{
            .type = counter.type(), .size = counter.size(), .older = value.value_or(0)};
        pair.newer =
            paired ? match->second.counters().Value(counter).value_or(pair.older) : pair.older;
        pairs.push_back(pair);
        in.values.push_back(pair.older);
      }
      for (uint32_t c = 0; c < pairs.size(); ++c) {
        const CounterPair* previous = c > 0 ? &pairs[c - 1] : nullptr;
        const CounterPair* next = c + 1 < pairs.size() ? &pairs[c + 1] : nullptr;
        in.models.push_back(ModelCounter(pairs[c], previous, next, c, older_clocks, newer_clocks,
                                         paired ? seconds : 0));
      }
      if (paired) {
        std::vector<uint64_t> newer_values;
        for (const CounterPair& pair : pairs) newer_values.push_back(pair.newer);
        LinkCopies(in, newer_values);
      }
      out.instances.push_back(std::move(in));
    }
    layout.objects.push_back(std::move(out));
  }
  return Status();
}

ObjectLayout* FindObject(MachineLayout& layout, uint32_t name_index) {
  for (ObjectLayout& object : layout.objects) {
    if (object.name_index == name_index) return &object;
  }
  return nullptr;
}

// System's Processes and Threads follow the generated processes, not a motion of their own.
void HoldProcessTotals(MachineLayout& layout) {
  ObjectLayout* system = FindObject(layout, ti::kSystem);
  ObjectLayout* process = FindObject(layout, ti::kProcess);
  if (system == nullptr || process == nullptr || system->instances.empty()) return;
  for (uint32_t c = 0; c < system->counters.size(); ++c) {
    const uint32_t index = system->counters[c].name_index;
    if (index == ti::kProcesses || index == ti::kThreads) {
      system->instances[0].models[c] = ValueModel();
    }
  }
}

// The donor instance for target instance `position` (of `count`), by position, _Total for _Total.
const InstanceLayout* DonorInstance(const ObjectLayout& donor, const ObjectLayout& target,
                                    size_t position) {
  constexpr std::string_view kTotal = "_Total";
  std::vector<const InstanceLayout*> plain;
  const InstanceLayout* total = nullptr;
  for (const InstanceLayout& instance : donor.instances) {
    if (instance.name == kTotal) {
      total = &instance;
    } else {
      plain.push_back(&instance);
    }
  }
  if (target.instances[position].name == kTotal && total != nullptr) return total;
  size_t rank = 0;
  for (size_t i = 0; i < position; ++i) rank += target.instances[i].name != kTotal;
  if (plain.empty()) return total;
  return plain[rank % plain.size()];
}

}  // namespace

Result<MachineLayout> BuildMachineLayout(const RealMachine& machine) {
  MachineLayout layout;
  layout.name = machine.name;
  for (const RealReply& reply : machine.replies) {
    Status added = AddReply(reply, layout);
    if (!added.ok()) return added.Prefixed(machine.name + ": ");
  }
  if (machine.replies.size() == 1 && !machine.replies[0].newer.empty()) {
    layout.real_older = machine.replies[0].older;
    layout.real_newer = machine.replies[0].newer;
  }

  TitleDatabase database;
  Status parsed = ParseTitleList(machine.titles, false, database);
  if (!parsed.ok()) return parsed.Prefixed(machine.name + " " + machine.titles_source + ": ");
  auto names = std::make_shared<std::map<uint32_t, std::string>>();
  for (uint32_t index = 0; index <= database.last_name_index(); ++index) {
    if (std::optional<std::string_view> name = database.Name(index)) {
      names->emplace(index, std::string(*name));
    }
  }
  for (ObjectLayout& object : layout.objects) {
    LinkPeaks(object, *names);
    MarkIdleTimers(object, *names);
  }
  HoldProcessTotals(layout);
  layout.names = std::move(names);
  layout.titles = std::make_shared<const std::vector<uint8_t>>(machine.titles);
  return layout;
}

void BorrowMotions(MachineLayout& target, const std::vector<MachineLayout>& donors) {
  for (ObjectLayout& object : target.objects) {
    const ObjectLayout* donor = nullptr;
    for (const MachineLayout& machine : donors) {
      if (machine.pair_seconds <= 0) continue;
      for (const ObjectLayout& candidate : machine.objects) {
        if (candidate.name_index == object.name_index && !candidate.instances.empty() &&
            (donor == nullptr || candidate.instances.size() > donor->instances.size())) {
          donor = &candidate;
        }
      }
    }
    if (donor == nullptr) continue;
    // Target counter position → the donor's counter with the same index and type.
    std::vector<uint32_t> from(object.counters.size(), kNoPartner);
    std::vector<uint32_t> to(donor->counters.size(), kNoPartner);
    for (uint32_t c = 0; c < object.counters.size(); ++c) {
      for (uint32_t d = 0; d < donor->counters.size(); ++d) {
        if (to[d] == kNoPartner && donor->counters[d].name_index == object.counters[c].name_index &&
            donor->counters[d].type == object.counters[c].type) {
          from[c] = d;
          to[d] = c;
          break;
        }
      }
    }
    for (size_t i = 0; i < object.instances.size(); ++i) {
      InstanceLayout& instance = object.instances[i];
      const InstanceLayout& source = *DonorInstance(*donor, object, i);
      for (uint32_t c = 0; c < object.counters.size(); ++c) {
        ValueModel& own = instance.models[c];
        if (from[c] == kNoPartner || own.motion != Motion::kConstant) continue;
        ValueModel lent = source.models[from[c]];
        if (lent.motion == Motion::kConstant || lent.motion == Motion::kClock ||
            lent.motion == Motion::kStartTime) {
          continue;
        }
        if (lent.partner != kNoPartner) {
          lent.partner = to[lent.partner];
          if (lent.partner == kNoPartner) continue;
        }
        lent.cumulative = own.cumulative;
        own = lent;
      }
    }
  }
}

Result<std::vector<MachineLayout>> LoadMachineLayouts(const std::filesystem::path& fixtures_root) {
  Result<std::vector<RealMachine>> machines = ReadRealMachines(fixtures_root);
  if (!machines.ok()) return machines.status();
  std::vector<MachineLayout> layouts;
  for (const RealMachine& machine : *machines) {
    Result<MachineLayout> layout = BuildMachineLayout(machine);
    if (!layout.ok()) return layout.status();
    layouts.push_back(std::move(layout).value());
  }
  for (MachineLayout& layout : layouts) {
    if (layout.pair_seconds <= 0) BorrowMotions(layout, layouts);
  }
  return layouts;
}

}  // namespace perfhive::fleet
