// Feeds arbitrary fleet parameters (host selector, aggregates, grouping, ranking, step) to the
// query engine over a small in-memory fleet of labelled hosts, as the API and the CLI pass them:
// one parameter a line, "select", "aggregate", "group_by", "rank_by", "top", "bottom", "step"
// (seconds), "compare", "held" in that order. A refusal must be an InvalidArgument or NotFound with
// a message; an answer must hold what was asked: at most N ranked series, every aggregate point
// combining at most its group's members, a count equal to its contributors. Nothing may crash or
// hang; a condition's series each held it at least once, for at least its duration.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "query/fleet_parameters.h"
#include "query/read_engine.h"
#include "tests/query/memory_sample_reader.h"
#include "tests/query/query_test_hosts.h"

namespace {

using namespace perfhive::query;           // NOLINT
using namespace perfhive::query::testing;  // NOLINT

MemorySampleReader& Fleet() {
  static MemorySampleReader* reader = [] {
    auto* fleet = new MemorySampleReader;
    int load = 0;
    for (const char* host : {"WEB01", "WEB02", "SQL01", "BARE"}) {
      uint64_t idle[2] = {0, 0};
      load += 15;
      for (int s = 0; s < 6; ++s) {
        for (uint64_t& cpu : idle)
          cpu += static_cast<uint64_t>(kTicksPerSecond) * (100 - load) / 100;
        if (host[0] == 'S' && s == 3) continue;  // a missed sample
        perfhive::SnapshotBuilder builder = HostAt(s);
        AddProcessors(builder, {idle[0], idle[1]}, {0, 0});
        AddProcesses(builder, s,
                     {{"svchost", 10, 1, static_cast<uint64_t>(s) * 1000},
                      {"svchost", 20, 2, static_cast<uint64_t>(s) * 3000}});
        HostSample sample = SampleOf(builder, s, EnglishTitles());
        sample.query = "Global";
        fleet->Add(host, std::move(sample));
      }
    }
    return fleet;
  }();
  return *reader;
}

const std::map<std::string, HostLabels> kLabels = {
    {"WEB01", {{"role", "web"}, {"site", "ams"}}},
    {"WEB02", {{"role", "web"}, {"site", "fra"}}},
    {"SQL01", {{"role", "sql"}}},
};

size_t Number(std::string_view text) {
  size_t value = 0;
  for (char c : text.substr(0, 4)) {
    if (c < '0' || c > '9') break;
    value = value * 10 + static_cast<size_t>(c - '0');
  }
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> lines;
  while (lines.size() < 9) {
    size_t end = text.find('\n');
    lines.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  lines.resize(9);
  FleetParameters parameters{lines[0],         lines[1], lines[2], Number(lines[4]),
                             Number(lines[5]), lines[3], lines[7], lines[8]};
  ReadRequest request;
  request.paths = {"\\\\*\\Processor(*)\\% Processor Time", "\\\\*\\Process(*)\\% Processor Time"};
  request.from_ns = kStartNs + kSecondNs;
  const size_t step = Number(lines[6]);
  if (step > 0) request.step_ns = static_cast<int64_t>(step) * kSecondNs;
  perfhive::Status applied = ApplyFleetParameters(parameters, request);
  if (!applied.ok()) {
    if (applied.code() != perfhive::StatusCode::kInvalidArgument || applied.message().empty()) {
      abort();
    }
    return 0;
  }
  ReadEngine engine(Fleet());
  engine.set_host_labels([](const std::string& host) {
    auto found = kLabels.find(host);
    return found == kLabels.end() ? HostLabels{} : found->second;
  });
  perfhive::Result<QueryAnswer> answer = engine.Read(request);
  if (!answer.ok()) {
    const perfhive::StatusCode code = answer.status().code();
    if ((code != perfhive::StatusCode::kInvalidArgument &&
         code != perfhive::StatusCode::kNotFound) ||
        answer.status().message().empty()) {
      abort();
    }
    return 0;
  }
  if (request.ranking && answer->series.size() > request.ranking->count) abort();
  for (const Series& series : answer->series) {
    if (request.condition) {
      if (series.held.empty()) abort();
      for (const HeldInterval& held : series.held) {
        if (held.to_ns - held.from_ns < request.condition->for_ns) abort();
        if (!request.condition->Meets(held.extreme)) abort();
      }
    }
    if (request.aggregation.has_value() != series.aggregate.has_value()) abort();
    if (!series.aggregate) continue;
    const SeriesAggregate& aggregate = *series.aggregate;
    if (aggregate.contributors.size() != series.points.size()) abort();
    for (size_t k = 0; k < series.points.size(); ++k) {
      const uint32_t contributors = aggregate.contributors[k];
      if (contributors == 0 || contributors > aggregate.members) abort();
      if (aggregate.function == "count" && series.points[k].value.value != contributors) abort();
    }
  }
  return 0;
}
