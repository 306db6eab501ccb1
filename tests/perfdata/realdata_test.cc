// The real captures in ../shared/fixtures/realdata: raw replies of Windows machines that no
// program of ours wrote (fixtures/README.md). Every value is checked against a figure worked
// out by hand from the raw bytes: the raw values are literals read off the files with a separate
// script, each formula is written out on them, and the rounded result is a literal too. The
// tests skip when ../shared is absent (a user's clone has none).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <compare>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/counter_statistics.h"
#include "perfdata/instance_names.h"
#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/snapshot_values.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

namespace wp = winperf;

const std::filesystem::path kRealData =
    std::filesystem::path(PERFHIVE_SHARED_DIR) / "fixtures" / "realdata";

// Two samples of one machine, older first, as files under realdata/; older is empty for the
// single replies of windows-rust-counters.
struct Machine {
  const char* name;
  const char* older;
  const char* newer;
};
constexpr Machine kMachines[] = {
    {"kinex01", "zenoss-windowsmonitor/kinex01-0.perf", "zenoss-windowsmonitor/kinex01-1.perf"},
    {"s-exch2007-64", "zenoss-windowsmonitor/s-exch2007-64-0.perf",
     "zenoss-windowsmonitor/s-exch2007-64-1.perf"},
    {"win2003", "zenoss-windowsmonitor/win2003-0.perf", "zenoss-windowsmonitor/win2003-1.perf"},
    {"wprepw01", "zenoss-windowsmonitor/wprepw01-0.perf", "zenoss-windowsmonitor/wprepw01-1.perf"},
    // -1 is the older sample of this pair (its PerfTime is 9.66 s before -0's).
    {"wrxxcrpisax01", "zenoss-windowsmonitor/wrxxcrpisax01-1.perf",
     "zenoss-windowsmonitor/wrxxcrpisax01-0.perf"},
    {"rust-system", "", "windows-rust-counters/system-2.bin"},
    {"rust-processor", "", "windows-rust-counters/processor-238.bin"},
};

const Machine& MachineNamed(std::string_view name) {
  return *std::find_if(std::begin(kMachines), std::end(kMachines),
                       [&](const Machine& m) { return m.name == name; });
}

// A counter by what a person reads in a path: object index, PDH instance name ("" for an
// object without instances), counter index and type (a fraction and its base share an index).
struct CounterKey {
  uint32_t object;
  std::string instance;
  uint32_t counter;
  uint32_t type;
  auto operator<=>(const CounterKey&) const = default;
};

// Which time of the sample the formula divides by, so that the test can check its literal.
enum class Clock { kNone, kTick, k100Ns, kObject };

// One value worked out by hand. n, b, d: value, base and time of the older (0) and newer (1)
// sample; f the frequency the formula uses. `formula` is the type's formula written out on those
// literals; `expected` the result as worked out, to 9 significant digits.
struct HandValue {
  const char* machine;
  uint32_t object;
  const char* instance;
  uint32_t counter;
  uint32_t type;
  Clock clock;
  int64_t d0, d1, f;
  uint64_t n0, n1, b0, b1;
  double formula;
  double expected;
};

const HandValue kHandValues[] = {
    // \\KINEX01\Memory\Pool Paged Allocs (4 bytes): N
    {"kinex01", 4, "", 60, wp::kCounterRawcount, Clock::kNone, 0, 0, 0, 67436u, 67449u, 0u, 0u,
     67449.0, 67449},
    // \\KINEX01\Memory\Available Bytes (8 bytes): N
    {"kinex01", 4, "", 24, wp::kCounterLargeRawcount, Clock::kNone, 0, 0, 0, 215597056u, 215597056u,
     0u, 0u, 215597056.0, 215597056},
    // \\KINEX01\LogicalDisk(C:)\Avg. Disk Queue Length (8 bytes): ΔN / ΔT100
    {"kinex01", 236, "C:", 1400, wp::kCounter100NsQueueLen, Clock::k100Ns, 128760056101381984,
     128760056102944544, 0, 129253388000u, 129253388000u, 0u, 0u,
     double(129253388000 - 129253388000) / double(128760056102944544 - 128760056101381984), 0},
    // \\KINEX01\Processor(_Total)\Interrupts/sec (4 bytes): ΔN / (ΔTb / F)
    {"kinex01", 238, "_Total", 148, wp::kCounterCounter, Clock::kTick, 5002337501522282,
     5002337833153328, 1995000000, 917563019u, 917563074u, 0u, 0u,
     double(917563074 - 917563019) / (double(5002337833153328 - 5002337501522282) / 1995000000),
     330.86468},
    // \\KINEX01\Processor(0)\C1 Transitions/sec (8 bytes): ΔN / (ΔTb / F)
    {"kinex01", 238, "0", 1754, wp::kCounterBulkCount, Clock::kTick, 5002337501522282,
     5002337833153328, 1995000000, 471371452u, 471371485u, 0u, 0u,
     double(471371485 - 471371452) / (double(5002337833153328 - 5002337501522282) / 1995000000),
     198.518808},
    // \\KINEX01\LogicalDisk(C:)\% Free Space (4 bytes): 100 · N / B
    {"kinex01", 236, "C:", 408, wp::kRawFraction, Clock::kNone, 0, 0, 0, 5145u, 5145u, 12276u,
     12276u, 100.0 * 5145 / 12276, 41.9110459},
    // \\KINEX01\Processor(0)\% User Time (8 bytes): 100 · ΔN / ΔT100
    {"kinex01", 238, "0", 142, wp::k100NsecTimer, Clock::k100Ns, 128760056101381984,
     128760056102944544, 0, 520306250000u, 520306718750u, 0u, 0u,
     100 * double(520306718750 - 520306250000) / double(128760056102944544 - 128760056101381984),
     29.998848},
    // \\KINEX01\LogicalDisk(C:)\% Idle Time (8 bytes): 100 · ΔN / ΔB
    {"kinex01", 236, "C:", 1482, wp::kPrecision100NsTimer, Clock::kNone, 0, 0, 0, 24682724024000u,
     24682725686000u, 128760056101381984u, 128760056102944544u,
     100 * double(24682725686000 - 24682724024000) /
         double(128760056102944544 - 128760056101381984),
     106.363916},
    // \\KINEX01\Processor(0)\% Processor Time (8 bytes): 100 · (1 − ΔN / ΔT100)
    {"kinex01", 238, "0", 6, wp::k100NsecTimerInv, Clock::k100Ns, 128760056101381984,
     128760056102944544, 0, 23962782656250u, 23962783593750u, 0u, 0u,
     100 * (1 - double(23962783593750 - 23962782656250) /
                    double(128760056102944544 - 128760056101381984)),
     40.0023039},
    // \\KINEX01\LogicalDisk(C:)\Avg. Disk sec/Transfer (8 bytes): (ΔN / F) / ΔB seconds (ΔB = 0: 0)
    {"kinex01", 236, "C:", 206, wp::kAverageTimer, Clock::kTick, 5002337501522282, 5002337833153328,
     1995000000, 25786050906000u, 25786050906000u, 8382932u, 8382932u, 0.0, 0},
    // \\KINEX01\System\System Up Time (8 bytes): (To − N) / Fo seconds
    {"kinex01", 2, "", 674, wp::kElapsedTime, Clock::kObject, 128760056101381984,
     128760056102944544, 10000000, 128734981195000000u, 128734981195000000u, 0u, 0u,
     double(128760056102944544 - 128734981195000000) / 10000000, 2507490.79},
    // \\KINEX01\LogicalDisk(C:)\Avg. Disk Bytes/Transfer (8 bytes): ΔN / ΔB (ΔB = 0: 0)
    {"kinex01", 236, "C:", 224, wp::kAverageBulk, Clock::kNone, 0, 0, 0, 106798346752u,
     106798346752u, 8382932u, 8382932u, 0.0, 0},
    // \\S-EXCH2007-64\Memory\Pool Paged Allocs (4 bytes): N
    {"s-exch2007-64", 4, "", 60, wp::kCounterRawcount, Clock::kNone, 0, 0, 0, 46611u, 46629u, 0u,
     0u, 46629.0, 46629},
    // \\S-EXCH2007-64\MSExchangeIS\RPC Requests Peak (8 bytes): N
    {"s-exch2007-64", 11194, "", 11214, wp::kCounterLargeRawcount, Clock::kNone, 0, 0, 0, 1u, 1u,
     0u, 0u, 1.0, 1},
    // \\S-EXCH2007-64\LogicalDisk(C:)\Avg. Disk Queue Length (8 bytes): ΔN / ΔT100
    {"s-exch2007-64", 236, "C:", 1400, wp::kCounter100NsQueueLen, Clock::k100Ns, 128762489281718750,
     128762489290937500, 0, 78562382000u, 78562744000u, 0u, 0u,
     double(78562744000 - 78562382000) / double(128762489290937500 - 128762489281718750),
     0.0392677966},
    // \\S-EXCH2007-64\LogicalDisk(C:)\Disk Transfers/sec (4 bytes): ΔN / (ΔTb / F)
    {"s-exch2007-64", 236, "C:", 212, wp::kCounterCounter, Clock::kTick, 359845111553273,
     359846766277566, 1796000000, 1013536u, 1013540u, 0u, 0u,
     double(1013540 - 1013536) / (double(359846766277566 - 359845111553273) / 1796000000),
     4.34150875},
    // \\S-EXCH2007-64\LogicalDisk(C:)\Disk Bytes/sec (8 bytes): ΔN / (ΔTb / F)
    {"s-exch2007-64", 236, "C:", 218, wp::kCounterBulkCount, Clock::kTick, 359845111553273,
     359846766277566, 1796000000, 4809510400u, 4809525760u, 0u, 0u,
     double(4809525760 - 4809510400) / (double(359846766277566 - 359845111553273) / 1796000000),
     16671.3936},
    // \\S-EXCH2007-64\LogicalDisk(C:)\% Free Space (4 bytes): 100 · N / B
    {"s-exch2007-64", 236, "C:", 408, wp::kRawFraction, Clock::kNone, 0, 0, 0, 810u, 810u, 10228u,
     10228u, 100.0 * 810 / 10228, 7.91943684},
    // \\S-EXCH2007-64\MSExchangeIS Mailbox(_Total)\Single Instance Ratio (8 bytes): 100 · N / B
    {"s-exch2007-64", 9486, "_Total", 9500, wp::kLargeRawFraction, Clock::kNone, 0, 0, 0, 0u, 0u,
     0u, 0u, 0.0, 0},
    // \\S-EXCH2007-64\Process(Idle)\% Processor Time (8 bytes): 100 · ΔN / ΔT100
    {"s-exch2007-64", 230, "Idle", 6, wp::k100NsecTimer, Clock::k100Ns, 128762489281718750,
     128762489290937500, 0, 1789175156250u, 1789182500000u, 0u, 0u,
     100 * double(1789182500000 - 1789175156250) / double(128762489290937500 - 128762489281718750),
     79.6610169},
    // \\S-EXCH2007-64\LogicalDisk(C:)\% Disk Time (8 bytes): 100 · ΔN / ΔB
    {"s-exch2007-64", 236, "C:", 200, wp::kPrecision100NsTimer, Clock::kNone, 0, 0, 0, 78562382000u,
     78562744000u, 128762489281718750u, 128762489290937500u,
     100 * double(78562744000 - 78562382000) / double(128762489290937500 - 128762489281718750),
     3.92677966},
    // \\S-EXCH2007-64\LogicalDisk(C:)\Avg. Disk sec/Transfer (8 bytes): (ΔN / F) / ΔB seconds
    {"s-exch2007-64", 236, "C:", 206, wp::kAverageTimer, Clock::kTick, 359845111553273,
     359846766277566, 1796000000, 14109803807200u, 14109868822400u, 1013536u, 1013540u,
     (double(14109868822400 - 14109803807200) / 1796000000) / double(1013540 - 1013536), 0.00905},
    // \\S-EXCH2007-64\Process(System)\Elapsed Time (8 bytes): (To − N) / Fo seconds
    {"s-exch2007-64", 230, "System", 684, wp::kElapsedTime, Clock::kObject, 128762489281718750,
     128762489290937500, 10000000, 128760485386406250u, 128760485386406250u, 0u, 0u,
     double(128762489290937500 - 128760485386406250) / 10000000, 200390.453},
    // \\S-EXCH2007-64\LogicalDisk(C:)\Avg. Disk Bytes/Transfer (8 bytes): ΔN / ΔB
    {"s-exch2007-64", 236, "C:", 224, wp::kAverageBulk, Clock::kNone, 0, 0, 0, 4809510400u,
     4809525760u, 1013536u, 1013540u, double(4809525760 - 4809510400) / double(1013540 - 1013536),
     3840},
    // \\S-EXCH2007-64\RAS Total\Bytes Transmitted/Sec (4 bytes): ΔN / (ΔTb / F)
    {"s-exch2007-64", 1976, "", 1966, wp::kCounterCounter, Clock::kTick, 359845111553273,
     359846766277566, 1796000000, 0u, 0u, 0u, 0u,
     double(0 - 0) / (double(359846766277566 - 359845111553273) / 1796000000), 0},
    // \\WIN2003\Processor(0)\DPC Rate (4 bytes): N
    {"win2003", 238, "0", 1336, wp::kCounterRawcount, Clock::kNone, 0, 0, 0, 0u, 1u, 0u, 0u, 1.0,
     1},
    // \\WIN2003\Memory\Available Bytes (8 bytes): N
    {"win2003", 4, "", 24, wp::kCounterLargeRawcount, Clock::kNone, 0, 0, 0, 113758208u, 113758208u,
     0u, 0u, 113758208.0, 113758208},
    // \\WIN2003\Processor(0)\Interrupts/sec (4 bytes): ΔN / (ΔTb / F)
    {"win2003", 238, "0", 148, wp::kCounterCounter, Clock::kTick, 9177809310918, 9177809738903,
     3579545, 231580364u, 231580376u, 0u, 0u,
     double(231580376 - 231580364) / (double(9177809738903 - 9177809310918) / 3579545), 100.364592},
    // \\WIN2003\Processor(0)\C1 Transitions/sec (8 bytes): ΔN / (ΔTb / F)
    {"win2003", 238, "0", 1754, wp::kCounterBulkCount, Clock::kTick, 9177809310918, 9177809738903,
     3579545, 161940125u, 161940137u, 0u, 0u,
     double(161940137 - 161940125) / (double(9177809738903 - 9177809310918) / 3579545), 100.364592},
    // \\WIN2003\Memory\% Committed Bytes In Use (4 bytes): 100 · N / B
    {"win2003", 4, "", 1406, wp::kRawFraction, Clock::kNone, 0, 0, 0, 302368u, 302368u, 413345u,
     413345u, 100.0 * 302368 / 413345, 73.1514836},
    // \\WIN2003\Processor(0)\% Idle Time (8 bytes): 100 · ΔN / ΔT100
    {"win2003", 238, "0", 1746, wp::k100NsecTimer, Clock::k100Ns, 128760211623806250,
     128760211625056250, 0, 19644094531250u, 19644095781250u, 0u, 0u,
     100 * double(19644095781250 - 19644094531250) /
         double(128760211625056250 - 128760211623806250),
     100},
    // \\WIN2003\Processor(0)\% Processor Time (8 bytes): 100 · (1 − ΔN / ΔT100)
    {"win2003", 238, "0", 6, wp::k100NsecTimerInv, Clock::k100Ns, 128760211623806250,
     128760211625056250, 0, 19644094531250u, 19644095781250u, 0u, 0u,
     100 * (1 - double(19644095781250 - 19644094531250) /
                    double(128760211625056250 - 128760211623806250)),
     0},
    // \\WIN2003\System\System Up Time (8 bytes): (To − N) / Fo seconds
    {"win2003", 2, "", 674, wp::kElapsedTime, Clock::kObject, 128760211623806250,
     128760211625056250, 10000000, 128734571665000000u, 128734571665000000u, 0u, 0u,
     double(128760211625056250 - 128734571665000000) / 10000000, 2563996.01},
    // \\WPREPW01\Memory\Pool Paged Allocs (4 bytes): N
    {"wprepw01", 4, "", 60, wp::kCounterRawcount, Clock::kNone, 0, 0, 0, 246928u, 246919u, 0u, 0u,
     246919.0, 246919},
    // \\WPREPW01\Memory\Available Bytes (8 bytes): N
    {"wprepw01", 4, "", 24, wp::kCounterLargeRawcount, Clock::kNone, 0, 0, 0, 3367378944u,
     3359744000u, 0u, 0u, 3359744000.0, 3.359744e+09},
    // \\WPREPW01\LogicalDisk(C:)\Avg. Disk Queue Length (8 bytes): ΔN / ΔT100
    {"wprepw01", 236, "C:", 1400, wp::kCounter100NsQueueLen, Clock::k100Ns, 129217971272087595,
     129217971293337459, 0, 1720586745000u, 1720586763000u, 0u, 0u,
     double(1720586763000 - 1720586745000) / double(129217971293337459 - 129217971272087595),
     0.000847064245},
    // \\WPREPW01\LogicalDisk(C:)\Disk Transfers/sec (4 bytes): ΔN / (ΔTb / F)
    {"wprepw01", 236, "C:", 212, wp::kCounterCounter, Clock::kTick, 67392152069121194,
     67392157999274486, 2793230000, 240521368u, 240521392u, 0u, 0u,
     double(240521392 - 240521368) / (double(67392157999274486 - 67392152069121194) / 2793230000),
     11.3045172},
    // \\WPREPW01\LogicalDisk(C:)\Disk Bytes/sec (8 bytes): ΔN / (ΔTb / F)
    {"wprepw01", 236, "C:", 218, wp::kCounterBulkCount, Clock::kTick, 67392152069121194,
     67392157999274486, 2793230000, 2902005888000u, 2902006020096u, 0u, 0u,
     double(2902006020096 - 2902005888000) /
         (double(67392157999274486 - 67392152069121194) / 2793230000),
     62220.0628},
    // \\WPREPW01\Memory\% Committed Bytes In Use (4 bytes): 100 · N / B
    {"wprepw01", 4, "", 1406, wp::kRawFraction, Clock::kNone, 0, 0, 0, 171046u, 171698u, 1396872u,
     1396872u, 100.0 * 171698 / 1396872, 12.2916058},
    // \\WPREPW01\Process(_Total)\% Processor Time (8 bytes): 100 · ΔN / ΔT100
    {"wprepw01", 230, "_Total", 6, wp::k100NsecTimer, Clock::k100Ns, 129217971272087595,
     129217971293337459, 0, 283509427656250u, 283509511875000u, 0u, 0u,
     100 * double(283509511875000 - 283509427656250) /
         double(129217971293337459 - 129217971272087595),
     396.326066},
    // \\WPREPW01\LogicalDisk(C:)\% Disk Time (8 bytes): 100 · ΔN / ΔB
    {"wprepw01", 236, "C:", 200, wp::kPrecision100NsTimer, Clock::kNone, 0, 0, 0, 1720586745000u,
     1720586763000u, 129217971272087595u, 129217971293337459u,
     100 * double(1720586763000 - 1720586745000) / double(129217971293337459 - 129217971272087595),
     0.0847064245},
    // \\WPREPW01\Processor(0)\% Processor Time (8 bytes): 100 · (1 − ΔN / ΔT100)
    {"wprepw01", 238, "0", 6, wp::k100NsecTimerInv, Clock::k100Ns, 129217971272087595,
     129217971293337459, 0, 233041702343750u, 233041723125000u, 0u, 0u,
     100 * (1 - double(233041723125000 - 233041702343750) /
                    double(129217971293337459 - 129217971272087595)),
     2.20525647},
    // \\WPREPW01\LogicalDisk(D:)\Avg. Disk sec/Read (8 bytes): (ΔN / F) / ΔB seconds
    {"wprepw01", 236, "D:", 208, wp::kAverageTimer, Clock::kTick, 67392152069121194,
     67392157999274486, 2793230000, 90940944655055u, 90943906316824u, 27281196u, 27281232u,
     (double(90943906316824 - 90940944655055) / 2793230000) / double(27281232 - 27281196),
     0.0294527778},
    // \\WPREPW01\System\System Up Time (8 bytes): (To − N) / Fo seconds
    {"wprepw01", 2, "", 674, wp::kElapsedTime, Clock::kObject, 129217971272087595,
     129217971293337459, 10000000, 128976697185000000u, 128976697185000000u, 0u, 0u,
     double(129217971293337459 - 128976697185000000) / 10000000, 24127410.8},
    // \\WPREPW01\LogicalDisk(C:)\Avg. Disk Bytes/Transfer (8 bytes): ΔN / ΔB
    {"wprepw01", 236, "C:", 224, wp::kAverageBulk, Clock::kNone, 0, 0, 0, 2902005888000u,
     2902006020096u, 240521368u, 240521392u,
     double(2902006020096 - 2902005888000) / double(240521392 - 240521368), 5504},
    // \\WPREPW01\LogicalDisk(C:)\Avg. Disk sec/Write (8 bytes): (ΔN / F) / ΔB seconds
    {"wprepw01", 236, "C:", 210, wp::kAverageTimer, Clock::kTick, 67392152069121194,
     67392157999274486, 2793230000, 398413635321526u, 398413640349340u, 166262855u, 166262879u,
     (double(398413640349340 - 398413635321526) / 2793230000) / double(166262879 - 166262855),
     7.5e-05},
    // \\WRXXCRPISAX01\ISA Server Firewall Packet Engine\Active Connections (4 bytes): N
    {"wrxxcrpisax01", 2530, "", 2532, wp::kCounterRawcount, Clock::kNone, 0, 0, 0, 61u, 61u, 0u, 0u,
     61.0, 61},
    // \\WRXXCRPISAX01\ISA Server Firewall Packet Engine\TCP Established Connections (4 bytes): N
    {"wrxxcrpisax01", 2530, "", 2536, wp::kCounterLargeRawcount, Clock::kNone, 0, 0, 0, 9u, 10u, 0u,
     0u, 10.0, 10},
    // \\WRXXCRPISAX01\ISA Server Web Proxy\DiffServ Requests - 1st Priority (8 bytes): ΔN
    {"wrxxcrpisax01", 2664, "", 2842, wp::kCounterLargeDelta, Clock::kNone, 0, 0, 0, 0u, 0u, 0u, 0u,
     double(0 - 0), 0},
    // \\WRXXCRPISAX01\LogicalDisk(C:)\Avg. Disk Queue Length (8 bytes): ΔN / ΔT100
    {"wrxxcrpisax01", 236, "C:", 1400, wp::kCounter100NsQueueLen, Clock::k100Ns, 128983691793245429,
     128983691889807929, 0, 664160000u, 664881000u, 0u, 0u,
     double(664881000 - 664160000) / double(128983691889807929 - 128983691793245429),
     0.00746666667},
    // \\WRXXCRPISAX01\ISA Server Firewall Packet Engine\Connections/sec (4 bytes): ΔN / (ΔTb / F)
    {"wrxxcrpisax01", 2530, "", 2534, wp::kCounterCounter, Clock::kTick, 269652927032444,
     269686667214321, 3491290000, 70854u, 70862u, 0u, 0u,
     double(70862 - 70854) / (double(269686667214321 - 269652927032444) / 3491290000), 0.827805852},
    // \\WRXXCRPISAX01\LogicalDisk(C:)\Disk Bytes/sec (8 bytes): ΔN / (ΔTb / F)
    {"wrxxcrpisax01", 236, "C:", 218, wp::kCounterBulkCount, Clock::kTick, 269652927032444,
     269686667214321, 3491290000, 1886445056u, 1886526976u, 0u, 0u,
     double(1886526976 - 1886445056) / (double(269686667214321 - 269652927032444) / 3491290000),
     8476.73192},
    // \\WRXXCRPISAX01\ISA Server Firewall Service\DNS Cache Hits % (8 bytes): 100 · N / B
    {"wrxxcrpisax01", 2412, "", 2462, wp::kRawFraction, Clock::kNone, 0, 0, 0, 970u, 972u, 1128u,
     1130u, 100.0 * 972 / 1130, 86.0176991},
    // \\WRXXCRPISAX01\ISA Server Web Proxy\Average request speed (8 bytes): 100 · N / B
    {"wrxxcrpisax01", 2664, "", 2964, wp::kLargeRawFraction, Clock::kNone, 0, 0, 0, 1175414u,
     364286u, 117u, 78u, 100.0 * 364286 / 78, 467033.333},
    // \\WRXXCRPISAX01\Processor(0)\% User Time (8 bytes): 100 · ΔN / ΔT100
    {"wrxxcrpisax01", 238, "0", 142, wp::k100NsecTimer, Clock::k100Ns, 128983691793245429,
     128983691889807929, 0, 1567343750u, 1567812500u, 0u, 0u,
     100 * double(1567812500 - 1567343750) / double(128983691889807929 - 128983691793245429),
     0.485436893},
    // \\WRXXCRPISAX01\LogicalDisk(C:)\% Disk Time (8 bytes): 100 · ΔN / ΔB
    {"wrxxcrpisax01", 236, "C:", 200, wp::kPrecision100NsTimer, Clock::kNone, 0, 0, 0, 664160000u,
     664881000u, 128983691793245429u, 128983691889807929u,
     100 * double(664881000 - 664160000) / double(128983691889807929 - 128983691793245429),
     0.746666667},
    // \\WRXXCRPISAX01\ISA Server Web Proxy\Compression - Current Ratio of Responses Compressed (8
    // bytes): 100 · ΔN / ΔB
    {"wrxxcrpisax01", 2664, "", 2848, wp::kSampleFraction, Clock::kNone, 0, 0, 0, 0u, 0u, 898u,
     899u, 100 * double(0 - 0) / double(899 - 898), 0},
    // \\WRXXCRPISAX01\Processor(0)\% Processor Time (8 bytes): 100 · (1 − ΔN / ΔT100)
    {"wrxxcrpisax01", 238, "0", 6, wp::k100NsecTimerInv, Clock::k100Ns, 128983691793245429,
     128983691889807929, 0, 768623281250u, 768719218750u, 0u, 0u,
     100 * (1 -
            double(768719218750 - 768623281250) / double(128983691889807929 - 128983691793245429)),
     0.647249191},
    // \\WRXXCRPISAX01\LogicalDisk(C:)\Avg. Disk sec/Transfer (8 bytes): (ΔN / F) / ΔB seconds
    {"wrxxcrpisax01", 236, "C:", 206, wp::kAverageTimer, Clock::kTick, 269652927032444,
     269686667214321, 3491290000, 231877516639u, 232129238648u, 183905u, 183915u,
     (double(232129238648 - 231877516639) / 3491290000) / double(183915 - 183905), 0.00721},
    // \\WRXXCRPISAX01\System\System Up Time (8 bytes): (To − N) / Fo seconds
    {"wrxxcrpisax01", 2, "", 674, wp::kElapsedTime, Clock::kObject, 128983691793245429,
     128983691889807929, 10000000, 128982919115000000u, 128982919115000000u, 0u, 0u,
     double(128983691889807929 - 128982919115000000) / 10000000, 77277.4808},
    // \\WRXXCRPISAX01\LogicalDisk(C:)\Avg. Disk Bytes/Transfer (8 bytes): ΔN / ΔB
    {"wrxxcrpisax01", 236, "C:", 224, wp::kAverageBulk, Clock::kNone, 0, 0, 0, 1886445056u,
     1886526976u, 183905u, 183915u, double(1886526976 - 1886445056) / double(183915 - 183905),
     8192},
    // \\WRXXCRPISAX01\ISA Server Firewall Packet Engine\Bytes (8 bytes): N
    {"wrxxcrpisax01", 2530, "", 2538, wp::kCounterLargeRawcount, Clock::kNone, 0, 0, 0, 526902742u,
     527048321u, 0u, 0u, 527048321.0, 527048321},
    // \\WRXXCRPISAX01\ISA Server Firewall Service\DNS Cache Hits (8 bytes): N
    {"wrxxcrpisax01", 2412, "", 2456, wp::kCounterRawcount, Clock::kNone, 0, 0, 0, 970u, 972u, 0u,
     0u, 972.0, 972},
    // \\WRXXCRPISAX01\ISA Server Web Proxy\Average Milliseconds/request (8 bytes): ΔN / ΔB
    {"wrxxcrpisax01", 2664, "", 2732, wp::kAverageBulk, Clock::kNone, 0, 0, 0, 122184u, 122262u,
     878u, 879u, double(122262 - 122184) / double(879 - 878), 78},
    // Single replies of a Windows 10 machine: one-sample types only.
    // \\...\System\Processes (4 bytes, DefaultScale 1): N
    {"rust-system", 2, "", 248, wp::kCounterRawcount, Clock::kNone, 0, 0, 0, 201u, 201u, 0u, 0u,
     201.0, 201},
    // \\...\System\% Registry Quota In Use (4 bytes, base 4 bytes): 100 · N / B
    {"rust-system", 2, "", 1350, wp::kRawFraction, Clock::kNone, 0, 0, 0, 171638764u, 171638764u,
     4294967295u, 4294967295u, 100.0 * 171638764 / 4294967295, 3.99627639},
    // \\...\System\System Up Time (DefaultScale −5): (To − N) / Fo seconds
    {"rust-system", 2, "", 674, wp::kElapsedTime, Clock::kObject, 132290312439883752,
     132290312439883752, 10000000, 132289457285000000u, 132289457285000000u, 0u, 0u,
     double(132290312439883752 - 132289457285000000) / 10000000, 85515.4883752},
    // \\...\Processor(0)\DPC Rate (4 bytes): N
    {"rust-processor", 238, "0", 1336, wp::kCounterRawcount, Clock::kNone, 0, 0, 0, 5u, 5u, 0u, 0u,
     5.0, 5},
};

// A snapshot file and its reader; the reader views the bytes.
struct Capture {
  std::vector<uint8_t> bytes;
  std::optional<SnapshotReader> reader;
};

class RealDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(kRealData)) {
      GTEST_SKIP() << "no real captures at " << kRealData << " (../shared is absent)";
    }
  }

  // The snapshot of `file` under realdata/, read once; nullptr (and a failure) if it does not
  // open.
  const SnapshotReader* Open(const std::string& file) {
    std::unique_ptr<Capture>& capture = captures_[file];
    if (!capture) {
      capture = std::make_unique<Capture>();
      std::ifstream in(kRealData / file, std::ios::binary);
      capture->bytes.assign(std::istreambuf_iterator<char>(in), {});
      Result<SnapshotReader> reader = SnapshotReader::Open(capture->bytes);
      EXPECT_TRUE(reader.ok()) << file << ": " << reader.error();
      if (reader.ok()) capture->reader.emplace(*reader);
    }
    return capture->reader ? &*capture->reader : nullptr;
  }

  // Every value of `newer` against `older` (nullptr: first sample), by counter.
  static std::map<CounterKey, ComputedValue> Values(const SnapshotReader* older,
                                                    const SnapshotReader& newer,
                                                    const FormatOptions& format = {}) {
    std::map<CounterKey, ComputedValue> values;
    std::map<uint32_t, std::vector<InstancePathName>> names;  // by the object's byte position
    ComputeSnapshotValues(older, newer, format, [&](const ComputedValue& v) {
      auto [named, fresh] = names.try_emplace(v.object.position());
      if (fresh) named->second = NameInstances(newer, v.object);
      std::string instance =
          v.instance.has_definition() ? named->second[v.instance_position].ToString() : "";
      values.emplace(
          CounterKey{v.object.name_index(), instance, v.counter.name_index(), v.counter.type()}, v);
    });
    return values;
  }

  std::map<std::string, std::unique_ptr<Capture>> captures_;
};

// The literals a hand value was worked out from are those in the files.
void ExpectSample(const RawCounter& raw, const HandValue& hand, uint64_t n, uint64_t b, int64_t d) {
  EXPECT_EQ(raw.value, n);
  if (NeedsBase(hand.type)) {
    ASSERT_TRUE(raw.has_base);
    EXPECT_EQ(raw.base, b);
  }
  switch (hand.clock) {
    case Clock::kNone:
      break;
    case Clock::kTick:
      EXPECT_EQ(raw.times.perf_time, d);
      EXPECT_EQ(raw.times.perf_freq, hand.f);
      break;
    case Clock::k100Ns:
      EXPECT_EQ(raw.times.perf_time_100ns, d);
      break;
    case Clock::kObject:
      EXPECT_EQ(raw.times.object_time, d);
      EXPECT_EQ(raw.times.object_freq, hand.f);
      break;
  }
}

TEST_F(RealDataTest, ValuesAreThoseWorkedOutByHandFromTheRawBytes) {
  for (const HandValue& hand : kHandValues) {
    SCOPED_TRACE(std::string(hand.machine) + " object " + std::to_string(hand.object) + " (" +
                 hand.instance + ") counter " + std::to_string(hand.counter));
    // The formula on the literals gives the figure worked out by hand.
    EXPECT_NEAR(hand.formula, hand.expected, 1e-8 * std::max(1.0, std::fabs(hand.expected)));

    const Machine& machine = MachineNamed(hand.machine);
    const bool two_samples = *machine.older != '\0';
    const SnapshotReader* older = two_samples ? Open(machine.older) : nullptr;
    const SnapshotReader* newer = Open(machine.newer);
    ASSERT_TRUE(newer != nullptr && (older != nullptr || !two_samples));
    const CounterKey key{hand.object, hand.instance, hand.counter, hand.type};
    std::map<CounterKey, ComputedValue> values = Values(older, *newer);
    ASSERT_TRUE(values.contains(key));
    const ComputedValue& value = values.at(key);
    ExpectSample(value.raw, hand, hand.n1, hand.b1, hand.d1);
    if (two_samples) {
      std::map<CounterKey, ComputedValue> before = Values(nullptr, *older);
      ASSERT_TRUE(before.contains(key));
      ExpectSample(before.at(key).raw, hand, hand.n0, hand.b0, hand.d0);
    }
    ASSERT_EQ(value.value.status, PdhStatus::kValidData);
    EXPECT_NEAR(value.value.value, hand.formula, 1e-12 * std::max(1.0, std::fabs(hand.formula)));
  }
}

// Values by status, counted by a separate script from the definitions and instances.
struct Census {
  uint32_t values = 0, valid = 0, no_data = 0, invalid = 0;
  bool operator==(const Census&) const = default;
};

Census CensusOf(const SnapshotReader* older, const SnapshotReader& newer) {
  Census census;
  ComputeSnapshotValues(older, newer, {}, [&](const ComputedValue& v) {
    ++census.values;
    const PdhStatus status = v.value.status;
    const uint32_t type = v.counter.type();
    // No number only for what has none; first samples of two-sample types wait for a second.
    if (status == PdhStatus::kNoData) {
      EXPECT_TRUE(IsBaseType(type) || type == wp::kCounterNodata) << std::hex << type;
      ++census.no_data;
    } else if (status == PdhStatus::kInvalidData) {
      EXPECT_TRUE(NeedsTwoSamples(type)) << std::hex << type;
      ++census.invalid;
    } else {
      EXPECT_EQ(status, PdhStatus::kValidData) << std::hex << type;
      ++census.valid;
    }
  });
  return census;
}

TEST_F(RealDataTest, EveryCounterOfEverySnapshotDecodes) {
  struct Expected {
    const char* machine;
    Census first;   // the newer sample alone
    Census paired;  // against the older one
  };
  // wprepw01: the 12 two-sample counters of the process that started between the samples.
  const Expected kExpected[] = {
      {"kinex01", {2805, 1134, 258, 1413}, {2805, 2547, 258, 0}},
      {"s-exch2007-64", {1578, 835, 63, 680}, {1578, 1515, 63, 0}},
      {"win2003", {87, 30, 6, 51}, {87, 81, 6, 0}},
      {"wprepw01", {1566, 759, 59, 748}, {1566, 1495, 59, 12}},
      {"wrxxcrpisax01", {645, 250, 102, 293}, {645, 543, 102, 0}},
      {"rust-system", {18, 5, 1, 12}, {}},
      {"rust-processor", {135, 9, 0, 126}, {}},
  };
  for (const Expected& expected : kExpected) {
    SCOPED_TRACE(expected.machine);
    const Machine& machine = MachineNamed(expected.machine);
    const SnapshotReader* newer = Open(machine.newer);
    ASSERT_NE(newer, nullptr);
    EXPECT_EQ(CensusOf(nullptr, *newer), expected.first);
    if (*machine.older == '\0') continue;
    const SnapshotReader* older = Open(machine.older);
    ASSERT_NE(older, nullptr);
    CensusOf(nullptr, *older);  // the older file alone decodes too
    EXPECT_EQ(CensusOf(older, *newer), expected.paired);
  }
}

TEST_F(RealDataTest, Kinex01ProcessesAreNamedAsPdhNamesThem) {
  // Duplicates get #1, #2, ... in order of appearance; the first keeps the bare name.
  const std::vector<std::string> kNames = {"Idle",
                                           "System",
                                           "smss",
                                           "csrss",
                                           "winlogon",
                                           "services",
                                           "lsass",
                                           "svchost",
                                           "svchost#1",
                                           "svchost#2",
                                           "svchost#3",
                                           "svchost#4",
                                           "spoolsv",
                                           "msdtc",
                                           "casdscsvc",
                                           "UnivAgent",
                                           "svchost#5",
                                           "inetinfo",
                                           "LogWatNT",
                                           "MSExchangeADTopologyService",
                                           "lic98Service",
                                           "msftesql",
                                           "svchost#6",
                                           "VMwareService",
                                           "store",
                                           "mad",
                                           "svchost#7",
                                           "ExchDocWrapper",
                                           "Microsoft.Exchange.AntispamUpdateSvc",
                                           "Microsoft.Exchange.EdgeSyncSvc",
                                           "MsExchangeFDS",
                                           "Microsoft.Exchange.Imap4Service",
                                           "w3wp",
                                           "MSExchangeMailboxAssistants",
                                           "MSExchangeMailSubmission",
                                           "Microsoft.Exchange.Pop3Service",
                                           "Microsoft.Exchange.Cluster.ReplayService",
                                           "Microsoft.Exchange.Search.ExSearch",
                                           "Microsoft.Exchange.ServiceHost",
                                           "w3wp#1",
                                           "w3wp#2",
                                           "Microsoft.Exchange.Imap4",
                                           "Microsoft.Exchange.Pop3",
                                           "wmiprvse",
                                           "svchost#8",
                                           "ctfmon",
                                           "ctfmon#1",
                                           "VMwareTray",
                                           "VMwareUser",
                                           "wuauclt",
                                           "MSExchangeTransport",
                                           "EdgeTransport",
                                           "MSExchangeTransportLogSearch",
                                           "svchost#9",
                                           "explorer",
                                           "wmiprvse#1",
                                           "mmc",
                                           "winexesvc",
                                           "mmc#1",
                                           "msftefd",
                                           "w3wp#3",
                                           "w3wp#4",
                                           "mmc#2",
                                           "cmd",
                                           "logon.scr",
                                           "_Total"};
  for (const char* file :
       {"zenoss-windowsmonitor/kinex01-0.perf", "zenoss-windowsmonitor/kinex01-1.perf"}) {
    const SnapshotReader* snapshot = Open(file);
    ASSERT_NE(snapshot, nullptr);
    std::optional<ObjectView> process = snapshot->FindObject(230);
    ASSERT_TRUE(process.has_value());
    EXPECT_EQ(process->num_instances(), 66);
    std::vector<std::string> names;
    for (const InstancePathName& name : NameInstances(*snapshot, *process)) {
      names.push_back(name.ToString());
    }
    EXPECT_EQ(names, kNames) << file;
  }
}

TEST_F(RealDataTest, AnObjectWithNoInstancesHasNoValues) {
  // S-EXCH2007-64's RAS Port (1940) has NumInstances 0; RAS Total (1976) has no instances
  // (−1) and one block. Both carry object times no formula uses (PerfTime 2^32, PerfFreq
  // 5 · 2^32): their rates divide by the block's clock.
  const Machine& machine = MachineNamed("s-exch2007-64");
  const SnapshotReader* older = Open(machine.older);
  const SnapshotReader* newer = Open(machine.newer);
  ASSERT_TRUE(older != nullptr && newer != nullptr);
  std::optional<ObjectView> port = newer->FindObject(1940);
  ASSERT_TRUE(port.has_value());
  EXPECT_EQ(port->num_instances(), 0);
  EXPECT_EQ(port->instances().begin(), port->instances().end());
  EXPECT_EQ(port->perf_freq(), 21474836480);
  uint32_t port_values = 0, total_values = 0;
  for (const auto& [key, value] : Values(older, *newer)) {
    if (key.object == 1940) ++port_values;
    if (key.object != 1976) continue;
    ++total_values;
    EXPECT_EQ(value.value.status, PdhStatus::kValidData) << key.counter;
  }
  EXPECT_EQ(port_values, 0u);
  EXPECT_EQ(total_values, 18u);
}

TEST_F(RealDataTest, InstancesPairByNameWhenACountChangesBetweenSamples) {
  // WPREPW01's Process goes from 31 to 32 instances: csc started and sits before _Total, which
  // moved from position 30 to 31.
  const Machine& machine = MachineNamed("wprepw01");
  const SnapshotReader* older = Open(machine.older);
  const SnapshotReader* newer = Open(machine.newer);
  ASSERT_TRUE(older != nullptr && newer != nullptr);
  EXPECT_EQ(older->FindObject(230)->num_instances(), 31);
  EXPECT_EQ(newer->FindObject(230)->num_instances(), 32);
  std::map<CounterKey, ComputedValue> values = Values(older, *newer);
  const ComputedValue& total = values.at({230, "_Total", 6, wp::k100NsecTimer});
  EXPECT_EQ(total.instance_position, 31u);
  ASSERT_EQ(total.value.status, PdhStatus::kValidData);
  // 100 · ΔN / ΔT100 of _Total's % Processor Time against _Total (not csc) in the older sample:
  // four busy CPUs.
  EXPECT_NEAR(total.value.value,
              100 * double(283509511875000 - 283509427656250) /
                  double(129217971293337459 - 129217971272087595),
              1e-9);
  // The new process has no older sample: two-sample counters wait, one-sample ones read.
  EXPECT_EQ(values.at({230, "csc", 6, wp::k100NsecTimer}).value.status, PdhStatus::kInvalidData);
  EXPECT_EQ(values.at({230, "csc", 684, wp::kElapsedTime}).value.status, PdhStatus::kValidData);
}

TEST_F(RealDataTest, SamplesInFileOrderRunBackwardsOnWrxxcrpisax01) {
  // wrxxcrpisax01-1.perf is the older sample: taken in file order, time runs backwards and every
  // rate and timer is a negative denominator rather than a value.
  const SnapshotReader* first = Open("zenoss-windowsmonitor/wrxxcrpisax01-0.perf");
  const SnapshotReader* second = Open("zenoss-windowsmonitor/wrxxcrpisax01-1.perf");
  ASSERT_TRUE(first != nullptr && second != nullptr);
  EXPECT_EQ(first->perf_time(), 269686667214321);
  EXPECT_EQ(second->perf_time(), 269652927032444);
  uint32_t clocked = 0;
  for (const auto& [key, value] : Values(first, *second)) {
    const uint32_t type = key.type;
    if (type != wp::kCounterCounter && type != wp::kCounterBulkCount && type != wp::k100NsecTimer &&
        type != wp::k100NsecTimerInv && type != wp::kCounter100NsQueueLen) {
      continue;
    }
    ++clocked;
    EXPECT_EQ(value.value.status, PdhStatus::kNegativeDenominator) << key.counter;
  }
  // Counted by the script: 91 COUNTER, 52 BULK_COUNT, 46 100NSEC_TIMER, 15 100NS_QUEUELEN and
  // 5 100NSEC_TIMER_INV values.
  EXPECT_EQ(clocked, 209u);
}

TEST_F(RealDataTest, DefaultScaleIsShownNotApplied) {
  const Machine& machine = MachineNamed("kinex01");
  const SnapshotReader* older = Open(machine.older);
  const SnapshotReader* newer = Open(machine.newer);
  ASSERT_TRUE(older != nullptr && newer != nullptr);
  // \\KINEX01\Processor(_Total)\Interrupts/sec, DefaultScale −2: 55 interrupts in 0.166 s.
  const double kInterruptsPerSec =
      double(917563074 - 917563019) / (double(5002337833153328 - 5002337501522282) / 1995000000);
  const CounterKey key{238, "_Total", 148, wp::kCounterCounter};
  std::map<CounterKey, ComputedValue> values = Values(older, *newer);
  const ComputedValue& value = values.at(key);
  EXPECT_EQ(value.counter.default_scale(), -2);
  EXPECT_NEAR(value.value.value, kInterruptsPerSec, 1e-9);
  EXPECT_NEAR(kInterruptsPerSec, 330.864680, 1e-6);
  // The caller's own factor, as PdhSetCounterScaleFactor(−2), and PDH_FMT_NOSCALE over it.
  EXPECT_NEAR(Values(older, *newer, {.scale_factor = -2}).at(key).value.value,
              kInterruptsPerSec / 100, 1e-11);
  EXPECT_NEAR(Values(older, *newer, {.scale_factor = -2, .no_scale = true}).at(key).value.value,
              kInterruptsPerSec, 1e-9);
  // Terminal Services Session's cache counters carry DefaultScale −10000, which would have read
  // every one of them as 0: \\WRXXCRPISAX01\Terminal Services Session(RDP-Tcp 4)\Total
  // Protocol Cache Reads is its raw count.
  const SnapshotReader* wrx = Open("zenoss-windowsmonitor/wrxxcrpisax01-0.perf");
  ASSERT_NE(wrx, nullptr);
  std::map<CounterKey, ComputedValue> sessions = Values(nullptr, *wrx);
  const ComputedValue& reads = sessions.at({1980, "RDP-Tcp 4", 2066, wp::kCounterRawcount});
  EXPECT_EQ(reads.counter.default_scale(), -10000);
  EXPECT_EQ(reads.value.value, 232542);

  // Statistics over the two samples: one interval, the same value.
  const RawCounter samples[] = {Values(nullptr, *older).at(key).raw, value.raw};
  CounterStatistics stats = ComputeCounterStatistics(samples);
  EXPECT_EQ(stats.count, 1u);
  EXPECT_NEAR(stats.mean, kInterruptsPerSec, 1e-9);
  EXPECT_NEAR(stats.max, kInterruptsPerSec, 1e-9);
}

}  // namespace
}  // namespace perfhive
