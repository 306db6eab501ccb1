#include "sources/procfs/network_object.h"

#include <algorithm>
#include <array>
#include <string>

#include "perfdata/well_known_indexes.h"
#include "sources/procfs/counter_layout.h"
#include "sources/procfs/instance_name.h"
#include "sources/procfs/proc_parsers.h"
#include "sources/procfs/proc_text.h"

namespace perfhive {
namespace {

namespace ti = title_index;
namespace wp = winperf;

enum NetworkCounter : uint32_t {
  kBytesTotal,
  kPackets,
  kPacketsReceived,
  kPacketsSent,
  kCurrentBandwidth,
  kBytesReceived,
  kReceivedUnicast,
  kReceivedNonUnicast,
  kReceivedDiscarded,
  kReceivedErrors,
  kBytesSent,
  kOutboundDiscarded,
  kOutboundErrors,
  kNumNetworkCounters
};
// Windows' order and types; the counts of problems are raw counts, not rates, as on Windows.
constexpr auto kNetworkCounters = std::to_array<CounterLayout>({
    {ti::kBytesTotalPerSec, wp::kCounterBulkCount},
    {ti::kPacketsPerSec, wp::kCounterBulkCount},
    {ti::kPacketsReceivedPerSec, wp::kCounterBulkCount},
    {ti::kPacketsSentPerSec, wp::kCounterBulkCount},
    {ti::kCurrentBandwidth, wp::kCounterLargeRawcount},
    {ti::kBytesReceivedPerSec, wp::kCounterBulkCount},
    {ti::kPacketsReceivedUnicastPerSec, wp::kCounterBulkCount},
    {ti::kPacketsReceivedNonUnicastPerSec, wp::kCounterBulkCount},
    {ti::kPacketsReceivedDiscarded, wp::kCounterLargeRawcount},
    {ti::kPacketsReceivedErrors, wp::kCounterLargeRawcount},
    {ti::kBytesSentPerSec, wp::kCounterBulkCount},
    {ti::kPacketsOutboundDiscarded, wp::kCounterLargeRawcount},
    {ti::kPacketsOutboundErrors, wp::kCounterLargeRawcount},
});
static_assert(kNetworkCounters.size() == kNumNetworkCounters);

// The link speed in bits per second; 0 when the interface has none (loopback, a link that is
// down: the file is unreadable or says -1).
uint64_t BandwidthOf(ProcfsContext& context, const std::string& name) {
  std::string path = "class/net/" + name + "/speed";
  if (!context.files.ReadSys(path.c_str(), context.buffer).ok()) return 0;
  std::string_view text = context.buffer.text();
  std::string_view line = NextLine(text);
  return ParseU64(NextField(line)).value_or(0) * 1'000'000;
}

}  // namespace

Status AddNetworkInterfaceObject(ProcfsContext& context, SnapshotBuilder& snapshot) {
  Result<std::vector<NetDevStats>> interfaces = context.ReadParsed("net/dev", ParseNetDev);
  if (!interfaces.ok()) return interfaces.status();
  ObjectBuilder& object = AddObjectWithCounters(snapshot, ti::kNetworkInterface,
                                                context.clock.perf_time, kNetworkCounters);
  for (const NetDevStats& link : *interfaces) {
    uint32_t instance = object.AddInstance(PdhInstanceName(link.name));
    auto set = [&](NetworkCounter counter, uint64_t value) {
      object.SetValue(instance, counter, value);
    };
    set(kBytesTotal, link.rx_bytes + link.tx_bytes);
    set(kPackets, link.rx_packets + link.tx_packets);
    set(kPacketsReceived, link.rx_packets);
    set(kPacketsSent, link.tx_packets);
    set(kCurrentBandwidth, BandwidthOf(context, link.name));
    set(kBytesReceived, link.rx_bytes);
    set(kReceivedUnicast, link.rx_packets - std::min(link.rx_multicast, link.rx_packets));
    set(kReceivedNonUnicast, link.rx_multicast);
    set(kReceivedDiscarded, link.rx_drops);
    set(kReceivedErrors, link.rx_errors);
    set(kBytesSent, link.tx_bytes);
    set(kOutboundDiscarded, link.tx_drops);
    set(kOutboundErrors, link.tx_errors);
  }
  return Status();
}

}  // namespace perfhive
