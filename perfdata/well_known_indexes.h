// The title indexes Windows gives the system objects and their counters. They are the same
// on every Windows host (extensible providers move, these do not), so a Linux host that uses
// them answers the same PDH paths: \\linuxhost\Processor(_Total)\% Processor Time. Each was
// checked against real title databases (tests/sources/procfs_titles_test.cc).

#ifndef PERFHIVE_PERFDATA_WELL_KNOWN_INDEXES_H_
#define PERFHIVE_PERFDATA_WELL_KNOWN_INDEXES_H_

#include <cstdint>

namespace perfhive::title_index {

// Objects.
inline constexpr uint32_t kSystem = 2;
inline constexpr uint32_t kMemory = 4;
inline constexpr uint32_t kProcess = 230;
inline constexpr uint32_t kThread = 232;
inline constexpr uint32_t kPhysicalDisk = 234;
inline constexpr uint32_t kLogicalDisk = 236;
inline constexpr uint32_t kProcessor = 238;
inline constexpr uint32_t kNetworkInterface = 510;

// Counters shared by Processor, Process and Thread.
inline constexpr uint32_t kPercentProcessorTime = 6;
inline constexpr uint32_t kPercentUserTime = 142;
inline constexpr uint32_t kPercentPrivilegedTime = 144;

// System.
inline constexpr uint32_t kProcessorQueueLength = 44;
inline constexpr uint32_t kContextSwitchesPerSec = 146;
inline constexpr uint32_t kProcesses = 248;
inline constexpr uint32_t kThreads = 250;
inline constexpr uint32_t kSystemUpTime = 674;

// Processor.
inline constexpr uint32_t kInterruptsPerSec = 148;
inline constexpr uint32_t kPercentDpcTime = 696;
inline constexpr uint32_t kPercentInterruptTime = 698;
inline constexpr uint32_t kPercentProcessorIdleTime = 1746;

// Memory.
inline constexpr uint32_t kAvailableBytes = 24;
inline constexpr uint32_t kCommittedBytes = 26;
inline constexpr uint32_t kPageFaultsPerSec = 28;
inline constexpr uint32_t kCommitLimit = 30;
inline constexpr uint32_t kPagesPerSec = 40;
inline constexpr uint32_t kPagesOutputPerSec = 48;
inline constexpr uint32_t kCacheBytes = 818;
inline constexpr uint32_t kPagesInputPerSec = 822;
inline constexpr uint32_t kAvailableKBytes = 1380;
inline constexpr uint32_t kAvailableMBytes = 1382;
inline constexpr uint32_t kPercentCommittedBytesInUse = 1406;

// Process and Thread.
inline constexpr uint32_t kThreadState = 46;
inline constexpr uint32_t kVirtualBytes = 174;
inline constexpr uint32_t kWorkingSet = 180;
inline constexpr uint32_t kPrivateBytes = 186;
inline constexpr uint32_t kThreadCount = 680;
inline constexpr uint32_t kElapsedTime = 684;
inline constexpr uint32_t kIdProcess = 784;
inline constexpr uint32_t kIdThread = 804;
inline constexpr uint32_t kHandleCount = 952;
inline constexpr uint32_t kCreatingProcessId = 1410;
inline constexpr uint32_t kIoReadOperationsPerSec = 1412;
inline constexpr uint32_t kIoWriteOperationsPerSec = 1414;
inline constexpr uint32_t kIoReadBytesPerSec = 1420;
inline constexpr uint32_t kIoWriteBytesPerSec = 1422;
inline constexpr uint32_t kWorkingSetPrivate = 1478;

// PhysicalDisk and LogicalDisk.
inline constexpr uint32_t kCurrentDiskQueueLength = 198;
inline constexpr uint32_t kPercentDiskTime = 200;
inline constexpr uint32_t kPercentDiskReadTime = 202;
inline constexpr uint32_t kPercentDiskWriteTime = 204;
inline constexpr uint32_t kAvgDiskSecPerTransfer = 206;
inline constexpr uint32_t kAvgDiskSecPerRead = 208;
inline constexpr uint32_t kAvgDiskSecPerWrite = 210;
inline constexpr uint32_t kDiskTransfersPerSec = 212;
inline constexpr uint32_t kDiskReadsPerSec = 214;
inline constexpr uint32_t kDiskWritesPerSec = 216;
inline constexpr uint32_t kDiskBytesPerSec = 218;
inline constexpr uint32_t kDiskReadBytesPerSec = 220;
inline constexpr uint32_t kDiskWriteBytesPerSec = 222;
inline constexpr uint32_t kAvgDiskBytesPerTransfer = 224;
inline constexpr uint32_t kAvgDiskBytesPerRead = 226;
inline constexpr uint32_t kAvgDiskBytesPerWrite = 228;
inline constexpr uint32_t kPercentFreeSpace = 408;
inline constexpr uint32_t kFreeMegabytes = 410;
inline constexpr uint32_t kAvgDiskQueueLength = 1400;
inline constexpr uint32_t kAvgDiskReadQueueLength = 1402;
inline constexpr uint32_t kAvgDiskWriteQueueLength = 1404;
inline constexpr uint32_t kPercentDiskIdleTime = 1482;

// Network Interface.
inline constexpr uint32_t kBytesReceivedPerSec = 264;
inline constexpr uint32_t kPacketsReceivedPerSec = 266;
inline constexpr uint32_t kBytesTotalPerSec = 388;
inline constexpr uint32_t kPacketsPerSec = 400;
inline constexpr uint32_t kPacketsSentPerSec = 452;
inline constexpr uint32_t kBytesSentPerSec = 506;
inline constexpr uint32_t kCurrentBandwidth = 520;
inline constexpr uint32_t kPacketsReceivedUnicastPerSec = 524;
inline constexpr uint32_t kPacketsReceivedNonUnicastPerSec = 526;
inline constexpr uint32_t kPacketsReceivedDiscarded = 528;
inline constexpr uint32_t kPacketsReceivedErrors = 530;
inline constexpr uint32_t kPacketsOutboundDiscarded = 540;
inline constexpr uint32_t kPacketsOutboundErrors = 542;

}  // namespace perfhive::title_index

#endif  // PERFHIVE_PERFDATA_WELL_KNOWN_INDEXES_H_
