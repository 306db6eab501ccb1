#include "tests/support/large_snapshot.h"

#include <initializer_list>
#include <string>

#include "perfdata/snapshot_builder.h"
#include "perfdata/winperf.h"

namespace perfhive::testing {
namespace {

namespace wp = winperf;

constexpr int64_t kFreq = 10'000'000;  // PerfFreq of a modern Windows host
constexpr int64_t k100nsPerSecond = 10'000'000;
constexpr int64_t kBootFiletime = 133'692'000'000'000'000;  // 2024-08-27 in 100 ns since 1601

struct Counter {
  uint32_t index;
  uint32_t type;
};

// Adds the counters and returns their positions (= the order given).
void AddCounters(ObjectBuilder& object, std::initializer_list<Counter> counters) {
  for (const Counter& c : counters) object.AddCounter({.name_index = c.index, .type = c.type});
}

const char* ProcessName(int p) {
  static const char* kNames[] = {"svchost", "chrome",  "explorer",      "sqlservr",   "w3wp",
                                 "dllhost", "conhost", "RuntimeBroker", "powershell", "lsass"};
  if (p < 60) return "svchost";  // real servers run dozens of svchost.exe
  return kNames[p % 10];
}

}  // namespace

std::vector<uint8_t> BuildLargeSnapshot(int sample) {
  const int64_t t = sample;  // seconds since the first sample
  SnapshotBuilder builder;
  builder.set_system_name("FLEETHOST01")
      .set_system_time({2024, 8, 2, 27, 12, 9, static_cast<uint16_t>(36 + sample % 20), 0})
      .set_perf_time(35'307'054'165'451 + t * kFreq)
      .set_perf_freq(kFreq)
      .set_perf_time_100ns(kBootFiletime + 35'307'054'165'451 + t * k100nsPerSecond);

  ObjectBuilder& system = builder.AddObject(2);
  AddCounters(system, {{146, wp::kCounterCounter},
                       {674, wp::kElapsedTime},
                       {44, wp::kCounterRawcount},
                       {248, wp::kCounterRawcount},
                       {250, wp::kCounterRawcount},
                       {10, wp::kCounterCounter},
                       {12, wp::kCounterCounter}});
  system.set_perf_time(35'307'054'165'451 + t * kFreq).set_perf_freq(kFreq);
  system.set_no_instances();
  for (uint32_t c = 0; c < 7; ++c) system.SetValue(0, c, 1'000'000 + 5'000 * c * t);
  system.SetValue(0, 1, 35'000'000'000'000);  // boot time in object PerfTime units

  ObjectBuilder& memory = builder.AddObject(4);
  AddCounters(memory, {{24, wp::kCounterLargeRawcount},
                       {26, wp::kCounterLargeRawcount},
                       {30, wp::kCounterLargeRawcount},
                       {818, wp::kCounterLargeRawcount},
                       {28, wp::kCounterCounter},
                       {40, wp::kCounterCounter}});
  memory.set_no_instances();
  memory.SetValue(0, 0, 17'179'869'184 - 4096 * t);
  memory.SetValue(0, 1, 51'539'607'552 + 8192 * t);
  memory.SetValue(0, 2, 103'079'215'104);
  memory.SetValue(0, 3, 2'147'483'648);
  memory.SetValue(0, 4, 90'000'000 + 3'000 * t);
  memory.SetValue(0, 5, 1'200'000 + 40 * t);

  ObjectBuilder& processor = builder.AddObject(238);
  AddCounters(processor, {{6, wp::k100NsecTimerInv},
                          {142, wp::k100NsecTimer},
                          {144, wp::k100NsecTimer},
                          {148, wp::kCounterCounter},
                          {696, wp::k100NsecTimer},
                          {698, wp::k100NsecTimer},
                          {1746, wp::k100NsecTimer},
                          {1482, wp::kCounterCounter},
                          {1484, wp::kCounterCounter}});
  for (int cpu = 0; cpu <= 64; ++cpu) {
    uint32_t i = processor.AddInstance(cpu == 64 ? "_Total" : std::to_string(cpu));
    int64_t idle_per_second = 7'500'000 + (cpu % 8) * 100'000;  // 25% busy, more on some
    for (uint32_t c = 0; c < 9; ++c) {
      uint64_t base = 1'000'000'000ull * (c + 1) + 12'345 * cpu;
      processor.SetValue(
          i, c, base + static_cast<uint64_t>((c == 0 || c == 6 ? idle_per_second : 1'000'000) * t));
    }
  }

  ObjectBuilder& disk = builder.AddObject(234);
  AddCounters(disk, {{198, wp::kCounterRawcount},
                     {200, wp::kPrecision100NsTimer},
                     {200, wp::kPrecisionTimestamp},
                     {1400, wp::kCounter100NsQueueLen},
                     {208, wp::kAverageTimer},
                     {208, wp::kAverageBase},
                     {214, wp::kCounterCounter},
                     {216, wp::kCounterCounter},
                     {218, wp::kCounterBulkCount},
                     {220, wp::kCounterBulkCount},
                     {222, wp::kAverageBulk},
                     {222, wp::kAverageBase}});
  for (int d = 0; d < 4; ++d) {
    uint32_t i = disk.AddInstance(d == 3 ? "_Total" : std::to_string(d) + " C:");
    uint64_t ops = 76'390'174 + 200 * static_cast<uint64_t>(t);
    disk.SetValue(i, 0, 0);
    disk.SetValue(i, 1, 129'203'443'492'420 + 2'000'000 * static_cast<uint64_t>(t));
    disk.SetValue(i, 2,
                  static_cast<uint64_t>(kBootFiletime + 35'307'054'165'451 + t * k100nsPerSecond));
    disk.SetValue(i, 3, 129'203'443'492'420 + 2'000'000 * static_cast<uint64_t>(t));
    disk.SetValue(i, 4, 2'237'294'148 + 10'000 * static_cast<uint64_t>(t));
    disk.SetValue(i, 5, ops);
    disk.SetValue(i, 6, ops);
    disk.SetValue(i, 7, 26'492'940 + 50 * static_cast<uint64_t>(t));
    disk.SetValue(i, 8, 2'786'603'610'624 + 819'200 * static_cast<uint64_t>(t));
    disk.SetValue(i, 9, 1'713'839'282'176 + 409'600 * static_cast<uint64_t>(t));
    disk.SetValue(i, 10, 2'786'603'610'624 + 819'200 * static_cast<uint64_t>(t));
    disk.SetValue(i, 11, ops);
  }

  constexpr int kProcesses = 400;
  constexpr int kThreadsPerProcess = 10;
  const std::initializer_list<Counter> process_counters = {
      {6, wp::k100NsecTimer},           {142, wp::k100NsecTimer},
      {144, wp::k100NsecTimer},         {172, wp::kCounterLargeRawcount},
      {174, wp::kCounterLargeRawcount}, {28, wp::kCounterCounter},
      {178, wp::kCounterLargeRawcount}, {180, wp::kCounterLargeRawcount},
      {182, wp::kCounterLargeRawcount}, {184, wp::kCounterLargeRawcount},
      {186, wp::kCounterLargeRawcount}, {680, wp::kCounterRawcount},
      {682, wp::kCounterRawcount},      {684, wp::kElapsedTime},
      {784, wp::kCounterRawcount},      {1410, wp::kCounterRawcount},
      {56, wp::kCounterRawcount},       {58, wp::kCounterRawcount},
      {952, wp::kCounterRawcount},      {1412, wp::kCounterBulkCount},
      {1414, wp::kCounterBulkCount},    {1416, wp::kCounterBulkCount},
      {1418, wp::kCounterBulkCount},    {1420, wp::kCounterBulkCount},
      {1422, wp::kCounterBulkCount},    {1424, wp::kCounterBulkCount},
      {1426, wp::kCounterBulkCount},    {1478, wp::kCounterLargeRawcount}};
  ObjectBuilder& process = builder.AddObject(230);
  AddCounters(process, process_counters);
  process.set_perf_time(35'307'054'165'451 + t * kFreq).set_perf_freq(kFreq);
  for (int p = 0; p < kProcesses; ++p) {
    uint32_t i = process.AddInstance(p == kProcesses - 1 ? "_Total" : ProcessName(p));
    for (uint32_t c = 0; c < process.num_counters(); ++c) {
      process.SetValue(i, c, 1'000'000ull * (p + 1) + 1'000ull * c + 100'000ull * (p % 7) * t);
    }
    process.SetValue(i, 11, kThreadsPerProcess);
    process.SetValue(i, 13, 35'000'000'000'000 + 1'000'000ull * p);
    process.SetValue(i, 14, 4 * static_cast<uint64_t>(p) + 4);
  }

  // Job Object Details: the same counters for every process of every job (one job per service
  // group here), named Job/Process as Windows names them.
  ObjectBuilder& job_details = builder.AddObject(1548);
  AddCounters(job_details, process_counters);
  job_details.set_perf_time(35'307'054'165'451 + t * kFreq).set_perf_freq(kFreq);
  for (int p = 0; p < kProcesses; ++p) {
    std::string name =
        "\\BaseNamedObjects\\ServiceGroup" + std::to_string(p % 40) + "/" + ProcessName(p);
    uint32_t i = job_details.AddInstance(name);
    for (uint32_t c = 0; c < job_details.num_counters(); ++c) {
      job_details.SetValue(i, c, 2'000'000ull * (p + 1) + 1'000ull * c + 50'000ull * (p % 5) * t);
    }
  }

  ObjectBuilder& network = builder.AddObject(510);
  AddCounters(network, {{388, wp::kCounterBulkCount},
                        {400, wp::kCounterBulkCount},
                        {520, wp::kCounterLargeRawcount},
                        {264, wp::kCounterBulkCount},
                        {506, wp::kCounterBulkCount}});
  for (int n = 0; n < 4; ++n) {
    uint32_t i = network.AddInstance("Intel[R] Ethernet Adapter #" + std::to_string(n + 1));
    network.SetValue(i, 0, 115'394'976'541 + 1'250'000 * static_cast<uint64_t>(t));
    network.SetValue(i, 1, 90'462'307 + 1'000 * static_cast<uint64_t>(t));
    network.SetValue(i, 2, 10'000'000'000);
    network.SetValue(i, 3, 68'757'287'000 + 1'000'000 * static_cast<uint64_t>(t));
    network.SetValue(i, 4, 21'705'020'000 + 250'000 * static_cast<uint64_t>(t));
  }

  ObjectBuilder& thread = builder.AddObject(232);
  AddCounters(thread, {{6, wp::k100NsecTimer},
                       {142, wp::k100NsecTimer},
                       {144, wp::k100NsecTimer},
                       {146, wp::kCounterCounter},
                       {684, wp::kElapsedTime},
                       {694, wp::kCounterRawcount},
                       {682, wp::kCounterRawcount},
                       {706, wp::kCounterLargeRawcountHex},
                       {46, wp::kCounterRawcount},
                       {336, wp::kCounterRawcount},
                       {784, wp::kCounterRawcount},
                       {804, wp::kCounterRawcount}});
  thread.set_perf_time(35'307'054'165'451 + t * kFreq).set_perf_freq(kFreq);
  for (int p = 0; p < kProcesses; ++p) {
    for (int n = 0; n < kThreadsPerProcess; ++n) {
      uint32_t i = thread.AddInstance(std::to_string(n), -1, 230, static_cast<uint32_t>(p));
      for (uint32_t c = 0; c < thread.num_counters(); ++c) {
        thread.SetValue(i, c, 10'000ull * (n + 1) + 100ull * c + 5'000ull * (n % 3) * t);
      }
      thread.SetValue(i, 4, 35'000'000'000'000 + 1'000'000ull * p);
      thread.SetValue(i, 10, 4 * static_cast<uint64_t>(p) + 4);
      thread.SetValue(i, 11, 4 * static_cast<uint64_t>(p * kThreadsPerProcess + n) + 8);
    }
  }
  return builder.Build();
}

}  // namespace perfhive::testing
