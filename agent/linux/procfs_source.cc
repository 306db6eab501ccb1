#include "agent/linux/procfs_source.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <optional>

#include "agent/linux/counter_indexes.h"
#include "agent/linux/disk_objects.h"
#include "agent/linux/host_objects.h"
#include "agent/linux/network_object.h"
#include "agent/linux/object_query.h"
#include "agent/linux/proc_parsers.h"
#include "agent/linux/proc_text.h"
#include "agent/linux/process_objects.h"
#include "agent/linux/procfs_context.h"
#include "agent/linux/procfs_titles.h"
#include "agent/linux/sample_clock.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {
namespace {

namespace ti = title_index;

uint64_t SysconfOr(uint64_t given, int name) {
  if (given != 0) return given;
  long value = sysconf(name);
  return value > 0 ? static_cast<uint64_t>(value) : 0;
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
  Result<ObjectQuery> wanted = ObjectQuery::Parse(query);
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
      .set_perf_freq(kPerfFreq)
      .set_perf_time_100ns(context.clock.filetime)
      .set_default_object(ti::kProcessor);

  size_t left_out = 0;
  auto leave_out = [&](std::string_view objects, const Status& why) {
    context.warnings.push_back(std::string(objects) + " left out: " + why.message());
    ++left_out;
  };
  // The CPU times come first, right after the clocks, since their rates are the most sensitive
  // to the time between the clock reading and the counters' reading.
  std::optional<KernelStat> stat;
  if (wanted->Wants(ti::kSystem) || wanted->Wants(ti::kProcessor) || wanted->Wants(ti::kProcess)) {
    Result<KernelStat> parsed = context.ReadParsed("stat", ParseKernelStat);
    if (parsed.ok()) {
      stat = std::move(parsed).value();
    } else {
      leave_out("System, Processor and Process", parsed.status());
    }
  }
  std::vector<uint64_t> interrupts;
  if (stat && wanted->Wants(ti::kProcessor)) {
    Result<std::vector<uint64_t>> parsed = context.ReadParsed("interrupts", ParseInterrupts);
    if (parsed.ok()) {
      interrupts = std::move(parsed).value();
    } else {
      context.warnings.push_back("Processor\\Interrupts/sec is 0: " + parsed.error());
    }
  }
  std::vector<int32_t> pids;
  if (stat && (wanted->Wants(ti::kSystem) || wanted->Wants(ti::kProcess))) {
    pids = files_.ListNumbered(".");
  }

  if (stat && wanted->Wants(ti::kSystem)) AddSystemObject(context, *stat, pids.size(), snapshot);
  if (wanted->Wants(ti::kMemory)) {
    if (Status status = AddMemoryObject(context, snapshot); !status.ok()) {
      leave_out("Memory", status);
    }
  }
  if (stat && wanted->Wants(ti::kProcess)) {
    AddProcessObjects(context, *stat, pids, wanted->Wants(ti::kThread), snapshot);
    process_files_.Sweep();
  }
  if (wanted->Wants(ti::kPhysicalDisk) || wanted->Wants(ti::kLogicalDisk)) {
    Result<std::vector<DiskStats>> disks = context.ReadParsed("diskstats", ParseDiskStats);
    if (!disks.ok()) {
      leave_out("PhysicalDisk and LogicalDisk", disks.status());
    } else {
      if (wanted->Wants(ti::kPhysicalDisk)) AddPhysicalDiskObject(context, *disks, snapshot);
      if (wanted->Wants(ti::kLogicalDisk)) {
        if (Status status = AddLogicalDiskObject(context, *disks, snapshot); !status.ok()) {
          leave_out("LogicalDisk", status);
        }
      }
    }
  }
  if (stat && wanted->Wants(ti::kProcessor)) {
    AddProcessorObject(context, *stat, interrupts, snapshot);
  }
  if (wanted->Wants(ti::kNetworkInterface)) {
    if (Status status = AddNetworkInterfaceObject(context, snapshot); !status.ok()) {
      leave_out("Network Interface", status);
    }
  }
  warnings_ = std::move(context.warnings);

  std::vector<uint8_t> bytes = snapshot.Build();
  Result<SnapshotReader> check = SnapshotReader::Open(bytes);
  if (!check.ok()) return Status::Error("the built snapshot is malformed: " + check.error());
  if (check->num_objects() == 0 && left_out > 0) {
    std::string message = "no object could be read";
    for (const std::string& warning : warnings_) message += "; " + warning;
    return Status::Error(message);
  }
  return bytes;
}

Result<TitleBytes> ProcfsSource::ReadTitles() {
  TitleDatabase titles = ProcfsTitleDatabase();
  TitleBytes bytes;
  bytes.counters = titles.EncodeNames();
  bytes.helps = titles.EncodeHelps();
  return bytes;
}

}  // namespace perfhive
