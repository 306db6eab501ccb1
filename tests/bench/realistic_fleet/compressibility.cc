#include "tests/bench/realistic_fleet/compressibility.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "codec/snapshot_delta.h"
#include "codec/zstd_codec.h"
#include "perfdata/snapshot_reader.h"
#include "tests/bench/realistic_fleet/fleet_generator.h"
#include "tests/bench/realistic_fleet/sample_pairing.h"

namespace perfhive::fleet {
namespace {

constexpr int kZstdLevel = 3;
constexpr int64_t kAgentInterval = 10'000'000'000;

// The bytes of `newer - older`, in the counter's width, as a zig-zag LEB128 varint.
int DeltaVarintBytes(uint64_t older, uint64_t newer, uint32_t size) {
  const int64_t delta = size == 4 ? static_cast<int32_t>(static_cast<uint32_t>(newer - older))
                                  : static_cast<int64_t>(newer - older);
  const uint64_t zigzag = (static_cast<uint64_t>(delta) << 1) ^ static_cast<uint64_t>(delta >> 63);
  const int bits = 64 - std::countl_zero(zigzag);
  return bits == 0 ? 1 : (bits + 6) / 7;
}

void CountValues(const ObjectView& before, const ObjectView& after, const SnapshotReader& older,
                 const SnapshotReader& newer, PairFigures& figures) {
  std::unordered_map<std::string, InstanceView> earlier = InstancesByKey(older, before);
  std::vector<std::string> keys = InstanceKeys(newer, after);
  size_t at = 0;
  for (const InstanceView& instance : after.instances()) {
    auto match = earlier.find(keys[at++]);
    if (match == earlier.end()) continue;
    for (const CounterDefinitionView& counter : after.counters()) {
      std::optional<uint64_t> now = instance.counters().Value(counter);
      std::optional<uint64_t> then = match->second.counters().Value(counter);
      if (!now.has_value() || !then.has_value()) continue;
      ++figures.values;
      if (*now == *then) continue;
      ++figures.changed;
      ++figures.delta_bytes[static_cast<size_t>(DeltaVarintBytes(*then, *now, counter.size()))];
    }
  }
}

std::string Percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * share);
  return text;
}

double Share(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0 : static_cast<double>(part) / static_cast<double>(whole);
}

// "1,234 B (5.6%)": bytes per pair and their share of the raw sample.
std::string BytesPerPair(uint64_t bytes, const PairFigures& figures) {
  const double per_pair = static_cast<double>(bytes) / std::max(figures.pairs, 1);
  char text[64];
  std::snprintf(text, sizeof text, "%.0f B (%.1f%%)", per_pair,
                100 * Share(bytes, figures.raw_bytes));
  return text;
}

Result<PairFigures> GeneratedFigures(
    const std::shared_ptr<const std::vector<MachineLayout>>& layouts, size_t machine, uint64_t seed,
    int64_t interval_ns, int pairs) {
  FleetOptions options{.seed = seed,
                       .hosts = 1,
                       .interval_ns = interval_ns,
                       .layouts = {(*layouts)[machine].name},
                       .title_change_probability = 0,
                       .activity = 1};
  Result<FleetGenerator> fleet = FleetGenerator::Create(layouts, options);
  if (!fleet.ok()) return fleet.status();
  HostSimulator host = fleet->StartHost(0);
  PairFigures figures;
  std::vector<uint8_t> previous = host.Next().snapshot;
  for (int k = 0; k < pairs; ++k) {
    std::vector<uint8_t> current = host.Next().snapshot;
    Result<PairFigures> pair = MeasurePair(previous, current);
    if (!pair.ok()) return pair.status();
    figures.Add(*pair);
    previous = std::move(current);
  }
  return figures;
}

}  // namespace

void PairFigures::Add(const PairFigures& other) {
  pairs += other.pairs;
  values += other.values;
  changed += other.changed;
  for (size_t i = 0; i < delta_bytes.size(); ++i) delta_bytes[i] += other.delta_bytes[i];
  raw_bytes += other.raw_bytes;
  xor_zstd_bytes += other.xor_zstd_bytes;
  delta_frame_bytes += other.delta_frame_bytes;
}

Result<PairFigures> MeasurePair(std::span<const uint8_t> older, std::span<const uint8_t> newer) {
  Result<SnapshotReader> before = SnapshotReader::Open(older);
  if (!before.ok()) return before.status().Prefixed("older sample: ");
  Result<SnapshotReader> after = SnapshotReader::Open(newer);
  if (!after.ok()) return after.status().Prefixed("newer sample: ");
  PairFigures figures{.pairs = 1, .raw_bytes = newer.size()};
  for (const ObjectView& object : after->objects()) {
    std::optional<ObjectView> earlier = before->FindObject(object.name_index());
    if (earlier.has_value() && SameDefinitions(*earlier, object)) {
      CountValues(*earlier, object, *before, *after, figures);
    }
  }
  std::vector<uint8_t> xored(std::max(older.size(), newer.size()), 0);
  for (size_t i = 0; i < xored.size(); ++i) {
    xored[i] =
        static_cast<uint8_t>((i < older.size() ? older[i] : 0) ^ (i < newer.size() ? newer[i] : 0));
  }
  figures.xor_zstd_bytes = ZstdCompress(xored, kZstdLevel).size();
  figures.delta_frame_bytes = EncodeDelta(older, newer, kZstdLevel).size();
  return figures;
}

Result<MachineComparison> CompareWithRealPair(
    const std::shared_ptr<const std::vector<MachineLayout>>& layouts, size_t machine, uint64_t seed,
    int pairs) {
  const MachineLayout& layout = (*layouts)[machine];
  if (layout.real_older.empty()) {
    return Status::InvalidArgument(layout.name + " has no real pair to compare with");
  }
  MachineComparison row{.machine = layout.name, .seconds = layout.pair_seconds};
  Result<PairFigures> real = MeasurePair(layout.real_older, layout.real_newer);
  if (!real.ok()) return real.status().Prefixed(layout.name + ": ");
  row.real = *real;
  const int64_t interval = std::llround(layout.pair_seconds * 1e9);
  Result<PairFigures> same = GeneratedFigures(layouts, machine, seed, interval, pairs);
  if (!same.ok()) return same.status();
  row.generated = *same;
  Result<PairFigures> agent = GeneratedFigures(layouts, machine, seed, kAgentInterval, pairs);
  if (!agent.ok()) return agent.status();
  row.generated_10s = *agent;
  return row;
}

std::string FormatComparison(const std::vector<MachineComparison>& rows) {
  std::string out;
  char line[512];
  out += "(a) Counter values that changed between consecutive samples\n\n";
  out +=
      "| machine | real interval | values | real | generated, same interval | "
      "generated, 10 s |\n|---|---|---|---|---|---|\n";
  for (const MachineComparison& row : rows) {
    std::snprintf(line, sizeof line, "| %s | %.3f s | %llu | %s | %s | %s |\n", row.machine.c_str(),
                  row.seconds, static_cast<unsigned long long>(row.real.values),
                  Percent(row.real.changed_share()).c_str(),
                  Percent(row.generated.changed_share()).c_str(),
                  Percent(row.generated_10s.changed_share()).c_str());
    out += line;
  }

  out += "\n(b) Deltas by their size as zig-zag varints, share of all values (same interval)\n\n";
  out +=
      "| machine | sample | unchanged | 1 B | 2 B | 3 B | 4 B | 5 B | 6-10 B |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const MachineComparison& row : rows) {
    for (const auto& [what, figures] :
         {std::pair<const char*, const PairFigures*>{"real", &row.real},
          std::pair<const char*, const PairFigures*>{"generated", &row.generated}}) {
      uint64_t wide = 0;
      for (size_t i = 6; i < figures->delta_bytes.size(); ++i) wide += figures->delta_bytes[i];
      std::string cells;
      for (size_t i = 1; i <= 5; ++i) {
        cells += " " + Percent(Share(figures->delta_bytes[i], figures->values)) + " |";
      }
      std::snprintf(line, sizeof line, "| %s | %s | %s |%s %s |\n", row.machine.c_str(), what,
                    Percent(Share(figures->values - figures->changed, figures->values)).c_str(),
                    cells.c_str(), Percent(Share(wide, figures->values)).c_str());
      out += line;
    }
  }

  out += "\n(c) Bytes per pair after zstd level 3, and their share of the raw sample\n\n";
  out +=
      "| machine | raw, real | raw, generated | XOR, real | XOR, generated | "
      "delta frame, real | delta frame, generated | delta frame, generated 10 s |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const MachineComparison& row : rows) {
    std::snprintf(line, sizeof line, "| %s | %llu B | %.0f B | %s | %s | %s | %s | %s |\n",
                  row.machine.c_str(), static_cast<unsigned long long>(row.real.raw_bytes),
                  static_cast<double>(row.generated.raw_bytes) / std::max(row.generated.pairs, 1),
                  BytesPerPair(row.real.xor_zstd_bytes, row.real).c_str(),
                  BytesPerPair(row.generated.xor_zstd_bytes, row.generated).c_str(),
                  BytesPerPair(row.real.delta_frame_bytes, row.real).c_str(),
                  BytesPerPair(row.generated.delta_frame_bytes, row.generated).c_str(),
                  BytesPerPair(row.generated_10s.delta_frame_bytes, row.generated_10s).c_str());
    out += line;
  }
  return out;
}

}  // namespace perfhive::fleet
