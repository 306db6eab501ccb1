// The /proc text parsers on samples in the kernel's formats (copied from a real host where
// noted, else written from proc(5)), on what older kernels print, and on malformed text.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sources/procfs/proc_parsers.h"
#include "sources/procfs/proc_text.h"

namespace perfhive {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ProcTextTest, SplitsLinesAndFields) {
  std::string_view text = "  a\tbb  c\nsecond";
  std::string_view line = NextLine(text);
  EXPECT_EQ(NextField(line), "a");
  EXPECT_EQ(NextField(line), "bb");
  EXPECT_EQ(NextField(line), "c");
  EXPECT_EQ(NextField(line), "");
  EXPECT_EQ(NextLine(text), "second");
  EXPECT_TRUE(text.empty());
}

TEST(ProcTextTest, ParsesOnlyWholeUnsignedNumbers) {
  EXPECT_EQ(ParseU64("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(ParseU64("0"), 0u);
  EXPECT_EQ(ParseU64("18446744073709551616"), std::nullopt);
  EXPECT_EQ(ParseU64("-1"), std::nullopt);
  EXPECT_EQ(ParseU64("12kB"), std::nullopt);
  EXPECT_EQ(ParseU64(""), std::nullopt);
}

TEST(ProcTextTest, FindsKeyedValuesInBothStyles) {
  std::string_view meminfo = "MemTotal:       24668920 kB\nMemAvailable:   23000000 kB\n";
  EXPECT_EQ(FindKeyedValue(meminfo, "MemAvailable"), 23000000u);
  EXPECT_EQ(FindKeyedValue(meminfo, "Mem"), std::nullopt);
  std::string_view vmstat = "pgfault 123\npgmajfault 4\n";
  EXPECT_EQ(FindKeyedValue(vmstat, "pgmajfault"), 4u);
  EXPECT_EQ(FindKeyedValue("voluntary_ctxt_switches:\tx\n", "voluntary_ctxt_switches"),
            std::nullopt);
}

TEST(KernelStatTest, ReadsEveryCpuLineAndTheCounts) {
  // From a 2-CPU Linux 6.18 host, with small edits to tell the fields apart.
  Result<KernelStat> stat = ParseKernelStat(
      "cpu  16356 0 3784 285748 287 0 31 33 0 0\n"
      "cpu0 6689 1 1378 144986 36 2 6 14 0 0\n"
      "cpu1 9666 0 2406 140762 250 0 25 19 0 0\n"
      "intr 169708 0 0 0\n"
      "ctxt 253209\n"
      "btime 1795346291\n"
      "processes 5326\n"
      "procs_running 3\n"
      "procs_blocked 0\n"
      "softirq 111229 0 24557 3\n");
  ASSERT_TRUE(stat.ok()) << stat.error();
  ASSERT_EQ(stat->cpus.size(), 2u);
  const CpuTicks& cpu0 = stat->cpus[0];
  EXPECT_EQ(cpu0.cpu, 0u);
  EXPECT_EQ(cpu0.user, 6689u);
  EXPECT_EQ(cpu0.nice, 1u);
  EXPECT_EQ(cpu0.system, 1378u);
  EXPECT_EQ(cpu0.idle, 144986u);
  EXPECT_EQ(cpu0.iowait, 36u);
  EXPECT_EQ(cpu0.irq, 2u);
  EXPECT_EQ(cpu0.softirq, 6u);
  EXPECT_EQ(cpu0.steal, 14u);
  EXPECT_EQ(stat->cpus[1].cpu, 1u);
  EXPECT_EQ(stat->cpus[1].steal, 19u);
  EXPECT_EQ(stat->context_switches, 253209u);
  EXPECT_EQ(stat->procs_running, 3u);
  EXPECT_EQ(stat->boot_time, 1795346291u);
}

TEST(KernelStatTest, OldKernelsPrintFewerFieldsAndOfflineCpusAreMissing) {
  Result<KernelStat> stat =
      ParseKernelStat("cpu 1 2 3 4\ncpu0 1 2 3 4\ncpu3 5 6 7 8\nbtime 1795346291\n");
  ASSERT_TRUE(stat.ok()) << stat.error();
  ASSERT_EQ(stat->cpus.size(), 2u);
  EXPECT_EQ(stat->cpus[1].cpu, 3u);
  EXPECT_EQ(stat->cpus[1].idle, 8u);
  EXPECT_EQ(stat->cpus[1].iowait, 0u);
  EXPECT_EQ(stat->context_switches, 0u);
}

TEST(KernelStatTest, ErrorsNameTheLineAndField) {
  Result<KernelStat> bad = ParseKernelStat("cpu 1 2 3 4\ncpu0 10 x 30\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error(), AllOf(HasSubstr("line 2"), HasSubstr("'x'")));
  Result<KernelStat> name = ParseKernelStat("cpuX 1 2 3\n");
  ASSERT_FALSE(name.ok());
  EXPECT_THAT(name.error(), AllOf(HasSubstr("line 1"), HasSubstr("cpuX")));
  Result<KernelStat> none = ParseKernelStat("cpu 1 2 3 4\nctxt 5\n");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.error(), HasSubstr("cpuN"));
  EXPECT_FALSE(ParseKernelStat("").ok());
}

// Start times count from btime; every kernel prints it, so a file without it is not /proc/stat.
TEST(KernelStatTest, BootTimeIsRequired) {
  Result<KernelStat> none = ParseKernelStat("cpu 1 2 3 4\ncpu0 1 2 3 4\nctxt 5\n");
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.error(), HasSubstr("no btime"));
  Result<KernelStat> bad = ParseKernelStat("cpu0 1 2 3 4\nbtime soon\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error(), AllOf(HasSubstr("line 2"), HasSubstr("'soon'")));
}

TEST(InterruptsTest, SumsEachCpuColumnOverFullRows) {
  Result<std::vector<uint64_t>> sums = ParseInterrupts(
      "           CPU0       CPU1       \n"
      " 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
      " 36:          0      13976  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
      "LOC:      39338      48803   Local timer interrupts\n"
      "ERR:          0\n"
      "MIS:          5\n");
  ASSERT_TRUE(sums.ok()) << sums.error();
  EXPECT_THAT(*sums, ElementsAre(1 + 39338, 13976 + 48803));
}

TEST(InterruptsTest, ColumnsFollowTheHeaderWhenCpusAreOffline) {
  Result<std::vector<uint64_t>> sums = ParseInterrupts("  CPU0 CPU2\n 1: 4 7 edge\n 2: 1 1\n");
  ASSERT_TRUE(sums.ok()) << sums.error();
  EXPECT_THAT(*sums, ElementsAre(5, 0, 8));
}

TEST(InterruptsTest, RejectsAFileWithoutCpuHeader) {
  Result<std::vector<uint64_t>> sums = ParseInterrupts(" 24: 1 0 IO-APIC\n");
  ASSERT_FALSE(sums.ok());
  EXPECT_THAT(sums.error(), AllOf(HasSubstr("line 1"), HasSubstr("CPUn")));
}

TEST(LoadavgTest, ReadsTheThreadTotal) {
  Result<uint64_t> threads = ParseLoadavgThreads("0.00 0.05 0.07 1/87 5328\n");
  ASSERT_TRUE(threads.ok()) << threads.error();
  EXPECT_EQ(*threads, 87u);
  Result<uint64_t> bad = ParseLoadavgThreads("0.00 0.05 0.07\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error(), HasSubstr("running/total"));
}

TEST(DiskStatsTest, ReadsCurrentAndOldFormats) {
  // The first line is verbatim from a Linux 6.18 host (17 numbers); the second has the 11 of
  // kernels before 4.18.
  Result<std::vector<DiskStats>> disks = ParseDiskStats(
      " 254       0 vda 15786 6464 2626042 14991 2731 5189 758056 2511 0 4076 17831 4008 31 "
      "372648 321 144 6\n"
      "   8       1 sda1 900 10 18000 4500 400 5 6000 2500 1 5000 7000\n"
      "\n");
  ASSERT_TRUE(disks.ok()) << disks.error();
  ASSERT_EQ(disks->size(), 2u);
  const DiskStats& vda = (*disks)[0];
  EXPECT_EQ(vda.major, 254u);
  EXPECT_EQ(vda.minor, 0u);
  EXPECT_EQ(vda.name, "vda");
  EXPECT_EQ(vda.reads, 15786u);
  EXPECT_EQ(vda.read_sectors, 2626042u);
  EXPECT_EQ(vda.read_ms, 14991u);
  EXPECT_EQ(vda.writes, 2731u);
  EXPECT_EQ(vda.write_sectors, 758056u);
  EXPECT_EQ(vda.write_ms, 2511u);
  EXPECT_EQ(vda.in_flight, 0u);
  EXPECT_EQ(vda.busy_ms, 4076u);
  const DiskStats& sda1 = (*disks)[1];
  EXPECT_EQ(sda1.minor, 1u);
  EXPECT_EQ(sda1.in_flight, 1u);
  EXPECT_EQ(sda1.busy_ms, 5000u);
}

TEST(DiskStatsTest, RejectsShortAndNonNumericLines) {
  Result<std::vector<DiskStats>> short_line = ParseDiskStats("8 1 sda1 1 2 3 4\n");
  ASSERT_FALSE(short_line.ok());
  EXPECT_THAT(short_line.error(), AllOf(HasSubstr("line 1"), HasSubstr("11 numbers")));
  Result<std::vector<DiskStats>> junk =
      ParseDiskStats("8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n8 1 sda1 1 2 3 4 5 6 7 8 9 ten 11\n");
  ASSERT_FALSE(junk.ok());
  EXPECT_THAT(junk.error(), AllOf(HasSubstr("line 2"), HasSubstr("'ten'")));
}

TEST(MountInfoTest, ReadsDeviceMountPointAndSource) {
  Result<std::vector<MountEntry>> mounts = ParseMountInfo(
      "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
      "36 35 98:0 /mnt1 /mnt\\0402 rw,noatime master:1 shared:2 - ext3 /dev/root rw\n"
      "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k\n");
  ASSERT_TRUE(mounts.ok()) << mounts.error();
  ASSERT_EQ(mounts->size(), 3u);
  EXPECT_EQ((*mounts)[0].major, 254u);
  EXPECT_EQ((*mounts)[0].mount_point, "/");
  EXPECT_EQ((*mounts)[0].source, "/dev/vda");
  EXPECT_EQ((*mounts)[1].major, 98u);
  EXPECT_EQ((*mounts)[1].mount_point, "/mnt 2");
  EXPECT_EQ((*mounts)[1].source, "/dev/root");
  EXPECT_EQ((*mounts)[2].minor, 23u);
  EXPECT_EQ((*mounts)[2].source, "tmpfs");
}

TEST(MountInfoTest, RejectsLinesWithoutSeparatorOrDevice) {
  Result<std::vector<MountEntry>> no_dash = ParseMountInfo("27 1 254:0 / / rw,relatime ext4\n");
  ASSERT_FALSE(no_dash.ok());
  EXPECT_THAT(no_dash.error(), AllOf(HasSubstr("line 1"), HasSubstr("- type source")));
  Result<std::vector<MountEntry>> device = ParseMountInfo("27 1 254 / / rw - ext4 /dev/vda rw\n");
  ASSERT_FALSE(device.ok());
  EXPECT_THAT(device.error(), HasSubstr("'254' is not MAJOR:MINOR"));
}

TEST(NetDevTest, ReadsEachInterfaceIncludingNumbersRunIntoTheColon) {
  Result<std::vector<NetDevStats>> links = ParseNetDev(
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
      "errs drop fifo colls carrier compressed\n"
      "    lo:    3267      29    0    0    0     0          0         0     3267      29    0 "
      "   0    0     0       0          0\n"
      "  eth0:18929641     470    1    2    0     0          0         7    29522     356    3 "
      "   4    0     0       0          0\n");
  ASSERT_TRUE(links.ok()) << links.error();
  ASSERT_EQ(links->size(), 2u);
  EXPECT_EQ((*links)[0].name, "lo");
  EXPECT_EQ((*links)[0].rx_bytes, 3267u);
  const NetDevStats& eth0 = (*links)[1];
  EXPECT_EQ(eth0.name, "eth0");
  EXPECT_EQ(eth0.rx_bytes, 18929641u);
  EXPECT_EQ(eth0.rx_packets, 470u);
  EXPECT_EQ(eth0.rx_errors, 1u);
  EXPECT_EQ(eth0.rx_drops, 2u);
  EXPECT_EQ(eth0.rx_multicast, 7u);
  EXPECT_EQ(eth0.tx_bytes, 29522u);
  EXPECT_EQ(eth0.tx_packets, 356u);
  EXPECT_EQ(eth0.tx_errors, 3u);
  EXPECT_EQ(eth0.tx_drops, 4u);
}

TEST(NetDevTest, RejectsALineWithoutName) {
  Result<std::vector<NetDevStats>> links = ParseNetDev("h1\nh2\n  eth0 1 2 3\n");
  ASSERT_FALSE(links.ok());
  EXPECT_THAT(links.error(), AllOf(HasSubstr("line 3"), HasSubstr("name:")));
}

TEST(ProcessStatTest, ReadsTheFieldsOfProcFive) {
  // comm holds spaces and parentheses; tpgid (8) and nice (19) are negative.
  Result<ProcessStat> stat = ParseProcessStat(
      "1234 (my (odd) name) S 1 1234 1234 0 -1 4194560 500 0 7 0 120 30 0 0 20 -5 3 0 4567 "
      "10485760 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n");
  ASSERT_TRUE(stat.ok()) << stat.error();
  EXPECT_EQ(stat->name, "my (odd) name");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->ppid, 1);
  EXPECT_EQ(stat->minor_faults, 500u);
  EXPECT_EQ(stat->major_faults, 7u);
  EXPECT_EQ(stat->user_ticks, 120u);
  EXPECT_EQ(stat->system_ticks, 30u);
  EXPECT_EQ(stat->num_threads, 3u);
  EXPECT_EQ(stat->start_ticks, 4567u);
  EXPECT_EQ(stat->virtual_bytes, 10485760u);
  EXPECT_FALSE(stat->kernel_thread);  // flags 0x400100
}

TEST(ProcessStatTest, KernelThreadsCarryPfKthread) {
  // A kworker of Linux 6.18, verbatim: flags 69238880 is 0x4208060, with PF_KTHREAD 0x200000.
  Result<ProcessStat> stat = ParseProcessStat(
      "7 (kworker/R-slub_flushwq) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 0 -20 1 0 24 0 0 "
      "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  ASSERT_TRUE(stat.ok()) << stat.error();
  EXPECT_EQ(stat->name, "kworker/R-slub_flushwq");
  EXPECT_TRUE(stat->kernel_thread);
  EXPECT_EQ(stat->ppid, 2);
}

TEST(ProcessStatTest, RejectsTruncatedAndNamelessText) {
  Result<ProcessStat> truncated = ParseProcessStat("1 (init) S 0 1 1 0 -1 4194560 500 0 7 0 12");
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(truncated.error(), HasSubstr("field 15 ''"));
  Result<ProcessStat> nameless = ParseProcessStat("1 init S 0");
  ASSERT_FALSE(nameless.ok());
  EXPECT_THAT(nameless.error(), HasSubstr("(name)"));
  Result<ProcessStat> state = ParseProcessStat("1 (init) SS 0");
  ASSERT_FALSE(state.ok());
  EXPECT_THAT(state.error(), HasSubstr("field 3"));
  EXPECT_FALSE(ParseProcessStat("").ok());
}

TEST(StatmTest, ReadsPages) {
  Result<ProcessPages> pages = ParseStatm("2560 500 100 20 0 300 0\n");
  ASSERT_TRUE(pages.ok()) << pages.error();
  EXPECT_EQ(pages->size, 2560u);
  EXPECT_EQ(pages->resident, 500u);
  EXPECT_EQ(pages->shared, 100u);
  EXPECT_EQ(pages->data, 300u);
  EXPECT_FALSE(ParseStatm("2560 five\n").ok());
}

}  // namespace
}  // namespace perfhive
