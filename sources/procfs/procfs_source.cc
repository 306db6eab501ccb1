#include "sources/procfs/procfs_source.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/well_known_indexes.h"
#include "sources/procfs/disk_objects.h"
#include "sources/procfs/host_objects.h"
#include "sources/procfs/network_object.h"
#include "sources/procfs/proc_parsers.h"
#include "sources/procfs/proc_text.h"
#include "sources/procfs/process_objects.h"
#include "sources/procfs/procfs_context.h"
#include "sources/procfs/procfs_titles.h"
#include "sources/procfs/requested_objects.h"
#include "sources/procfs/sample_clock.h"

namespace perfhive {
namespace {

namespace ti = title_index;

uint64_t SysconfOr(uint64_t given, int name) {
  if (given != 0) return given;
  long value = sysconf(name);
  return value > 0 ? static_cast<uint64_t>(value) : 0;
}

// What a snapshot leaves out, and why, as warnings; counted, because a snapshot that lost every
// object it could have had is an error, not an empty snapshot.
struct LeftOut {
  ProcfsContext& context;
  size_t count = 0;

  void Add(std::string_view objects, const Status& why) {
    context.warnings.push_back(std::string(objects) + " left out: " + why.message());
    ++count;
  }
};

// The readings System, Processor and Process are built from.
struct CpuReadings {
  std::optional<KernelStat> stat;  // none: those objects are left out
  std::vector<uint64_t> interrupts;
  std::vector<int32_t> pids;
};

// Read first, right after the clocks, since the CPU times' rates are the most sensitive to the
// time between the clock reading and the counters' reading.
CpuReadings ReadCpuReadings(ProcfsContext& context, const RequestedObjects& wanted,
                            LeftOut& left_out) {
  CpuReadings readings;
  if (wanted.Wants(ti::kSystem) || wanted.Wants(ti::kProcessor) || wanted.Wants(ti::kProcess)) {
    Result<KernelStat> parsed = context.ReadParsed("stat", ParseKernelStat);
    if (parsed.ok()) {
      readings.stat = std::move(parsed).value();
    } else {
      left_out.Add("System, Processor and Process", parsed.status());
    }
  }
  if (readings.stat && wanted.Wants(ti::kProcessor)) {
    Result<std::vector<uint64_t>> parsed = context.ReadParsed("interrupts", ParseInterrupts);
    if (parsed.ok()) {
      readings.interrupts = std::move(parsed).value();
    } else {
      context.warnings.push_back("Processor\\Interrupts/sec is 0: " + parsed.error());
    }
  }
  if (readings.stat && (wanted.Wants(ti::kSystem) || wanted.Wants(ti::kProcess))) {
    readings.pids = context.files.ListNumbered(".");
  }
  return readings;
}

// PhysicalDisk and LogicalDisk, from one reading of diskstats.
void AddDiskObjects(ProcfsContext& context, const RequestedObjects& wanted, LeftOut& left_out,
                    SnapshotBuilder& snapshot) {
  if (!wanted.Wants(ti::kPhysicalDisk) && !wanted.Wants(ti::kLogicalDisk)) return;
  Result<std::vector<DiskStats>> disks = context.ReadParsed("diskstats", ParseDiskStats);
  if (!disks.ok()) {
    left_out.Add("PhysicalDisk and LogicalDisk", disks.status());
    return;
  }
  if (wanted.Wants(ti::kPhysicalDisk)) AddPhysicalDiskObject(context, *disks, snapshot);
  if (wanted.Wants(ti::kLogicalDisk)) {
    if (Status status = AddLogicalDiskObject(context, *disks, snapshot); !status.ok()) {
      left_out.Add("LogicalDisk", status);
    }
  }
}

// The built snapshot, checked; UNAVAILABLE, with every reason, when objects were left out and
// none is in it.
Result<std::vector<uint8_t>> CheckedSnapshot(const SnapshotBuilder& snapshot,
                                             const LeftOut& left_out) {
  std::vector<uint8_t> bytes = snapshot.Build();
  Result<SnapshotReader> check = SnapshotReader::Open(bytes);
  if (!check.ok()) return Status::Internal("the built snapshot is malformed: " + check.error());
  if (check->num_objects() == 0 && left_out.count > 0) {
    std::string message = "no object could be read";
    for (const std::string& warning : left_out.context.warnings) message += "; " + warning;
    return Status::Unavailable(message);
  }
  return bytes;
}

}  // namespace

Result<std::unique_ptr<ProcfsSource>> ProcfsSource::Create(ProcfsOptions options) {
  uint64_t ticks = SysconfOr(options.ticks_per_second, _SC_CLK_TCK);
  uint64_t page_size = SysconfOr(options.page_size, _SC_PAGESIZE);
  if (ticks == 0 || page_size == 0) {
    return Status::Error("cannot learn USER_HZ or the page size from sysconf()");
  }
  Result<ProcFiles> files =
      ProcFiles::Open(std::move(options.proc_root), std::move(options.sys_root));
  if (!files.ok()) return files.status();
  // Process files are kept open between snapshots, within half the descriptor limit.
  rlimit limit{};
  size_t max_open = 0;
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    max_open = static_cast<size_t>(std::min<rlim_t>(limit.rlim_cur, rlim_t{1} << 20) / 2);
  }
  return std::unique_ptr<ProcfsSource>(
      new ProcfsSource(std::move(files).value(), ticks, page_size, max_open));
}

std::string ProcfsSource::HostName() const {
  ReadBuffer text;
  if (files_.Read("sys/kernel/hostname", text).ok()) {
    std::string_view rest = text.text();
    std::string_view line = NextLine(rest);
    if (!line.empty()) return std::string(line);
  }
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

Result<std::vector<uint8_t>> ProcfsSource::TakeSnapshot(std::string_view query) {
  Result<RequestedObjects> wanted = RequestedObjects::Parse(query);
  if (!wanted.ok()) return wanted.status();
  std::string host_name = HostName();
  ProcfsContext context{.files = files_,
                        .process_files = process_files_,
                        .clock = SampleClock::Now(),
                        .ticks_per_second = ticks_per_second_,
                        .page_size = page_size_,
                        .buffer = {},
                        .warnings = {}};
  SnapshotBuilder snapshot;
  snapshot.set_system_name(host_name)
      .set_system_time(context.clock.system_time)
      .set_perf_time(context.clock.perf_time)
      .set_perf_freq(kSamplePerfFreq)
      .set_perf_time_100ns(context.clock.filetime)
      .set_default_object(ti::kProcessor);

  LeftOut left_out{context};
  CpuReadings cpu = ReadCpuReadings(context, *wanted, left_out);
  if (cpu.stat && wanted->Wants(ti::kSystem)) {
    AddSystemObject(context, *cpu.stat, cpu.pids.size(), snapshot);
  }
  if (wanted->Wants(ti::kMemory)) {
    if (Status status = AddMemoryObject(context, snapshot); !status.ok()) {
      left_out.Add("Memory", status);
    }
  }
  if (cpu.stat && wanted->Wants(ti::kProcess)) {
    AddProcessObjects(context, *cpu.stat, cpu.pids, wanted->Wants(ti::kThread), snapshot);
    process_files_.Sweep();
  }
  AddDiskObjects(context, *wanted, left_out, snapshot);
  if (cpu.stat && wanted->Wants(ti::kProcessor)) {
    AddProcessorObject(context, *cpu.stat, cpu.interrupts, snapshot);
  }
  if (wanted->Wants(ti::kNetworkInterface)) {
    if (Status status = AddNetworkInterfaceObject(context, snapshot); !status.ok()) {
      left_out.Add("Network Interface", status);
    }
  }
  warnings_.insert(warnings_.end(), context.warnings.begin(), context.warnings.end());
  return CheckedSnapshot(snapshot, left_out);
}

Result<std::optional<std::vector<TitleBytes>>> ProcfsSource::ReadTitlesIfChanged() {
  // The Linux source's titles are fixed at build time: they change only with the binary.
  if (titles_returned_) return std::optional<std::vector<TitleBytes>>();
  Result<std::vector<TitleBytes>> titles = ReadTitles();
  if (!titles.ok()) return titles.status();
  titles_returned_ = true;
  return std::optional<std::vector<TitleBytes>>(std::move(titles).value());
}

std::vector<std::string> ProcfsSource::TakeWarnings() { return std::exchange(warnings_, {}); }

Result<HostIdentity> ProcfsSource::Identity() {
  HostIdentity identity;
  identity.name = HostName();
  identity.os = "Linux";
  ReadBuffer text;
  if (files_.Read("sys/kernel/osrelease", text).ok()) {
    std::string_view rest = text.text();
    identity.os_version = std::string(NextLine(rest));
  }
  return identity;
}

Result<std::vector<TitleBytes>> ProcfsSource::ReadTitles() {
  // English only: the Linux source names its objects in English whatever the locale.
  TitleDatabase titles = ProcfsTitleDatabase();
  TitleBytes bytes;
  bytes.counters = titles.EncodeNames();
  bytes.helps = titles.EncodeHelps();
  return std::vector<TitleBytes>{std::move(bytes)};
}

}  // namespace perfhive
