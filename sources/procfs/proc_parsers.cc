#include "sources/procfs/proc_parsers.h"

#include <algorithm>
#include <initializer_list>
#include <utility>

#include "sources/procfs/proc_text.h"

namespace perfhive {
namespace {

Status LineError(int line_number, std::string_view what) {
  return Status::Error("line " + std::to_string(line_number) + ": " + std::string(what));
}

Status NotANumber(int line_number, std::string_view field) {
  return LineError(line_number, "'" + std::string(field) + "' is not a number");
}

// Fills the targets from the next fields of `line`; fields the line lacks leave 0 (older
// kernels print fewer).
Status ReadNumbers(std::string_view& line, int line_number,
                   std::initializer_list<uint64_t*> targets) {
  for (uint64_t* target : targets) {
    std::string_view field = NextField(line);
    if (field.empty()) {
      *target = 0;
      continue;
    }
    std::optional<uint64_t> value = ParseU64(field);
    if (!value) return NotANumber(line_number, field);
    *target = *value;
  }
  return Status();
}

// "MAJOR:MINOR".
bool ParseDeviceNumber(std::string_view field, uint32_t& major, uint32_t& minor) {
  size_t colon = field.find(':');
  if (colon == std::string_view::npos) return false;
  std::optional<uint64_t> high = ParseU64(field.substr(0, colon));
  std::optional<uint64_t> low = ParseU64(field.substr(colon + 1));
  if (!high || !low || *high > UINT32_MAX || *low > UINT32_MAX) return false;
  major = static_cast<uint32_t>(*high);
  minor = static_cast<uint32_t>(*low);
  return true;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string UnescapeOctal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' &&
        text[i + 2] >= '0' && text[i + 2] <= '7' && text[i + 3] >= '0' && text[i + 3] <= '7') {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 +
                                      (text[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace

Result<KernelStat> ParseKernelStat(std::string_view text) {
  KernelStat stat;
  for (int line_number = 1; !text.empty(); ++line_number) {
    std::string_view line = NextLine(text);
    std::string_view key = NextField(line);
    if (key.starts_with("cpu") && key.size() > 3) {
      std::optional<uint64_t> id = ParseU64(key.substr(3));
      if (!id || *id > UINT32_MAX)
        return LineError(line_number, "bad CPU name '" + std::string(key) + "'");
      CpuTicks& cpu = stat.cpus.emplace_back();
      cpu.cpu = static_cast<uint32_t>(*id);
      Status status = ReadNumbers(line, line_number,
                                  {&cpu.user, &cpu.nice, &cpu.system, &cpu.idle, &cpu.iowait,
                                   &cpu.irq, &cpu.softirq, &cpu.steal});
      if (!status.ok()) return status;
    } else if (key == "ctxt" || key == "procs_running" || key == "btime") {
      uint64_t* target = key == "ctxt"            ? &stat.context_switches
                         : key == "procs_running" ? &stat.procs_running
                                                  : &stat.boot_time;
      Status status = ReadNumbers(line, line_number, {target});
      if (!status.ok()) return status;
    }
  }
  if (stat.cpus.empty()) return Status::Error("no per-CPU (cpuN) lines");
  if (stat.boot_time == 0) return Status::Error("no btime (boot time) line");
  return stat;
}

Result<std::vector<uint64_t>> ParseInterrupts(std::string_view text) {
  std::string_view header = NextLine(text);
  std::vector<uint32_t> column_cpus;
  uint32_t max_cpu = 0;
  for (std::string_view field = NextField(header); !field.empty(); field = NextField(header)) {
    std::optional<uint64_t> id =
        field.starts_with("CPU") ? ParseU64(field.substr(3)) : std::nullopt;
    if (!id || *id > UINT16_MAX) return LineError(1, "'" + std::string(field) + "' is not CPUn");
    column_cpus.push_back(static_cast<uint32_t>(*id));
    max_cpu = std::max(max_cpu, column_cpus.back());
  }
  if (column_cpus.empty()) return LineError(1, "no CPU columns");
  std::vector<uint64_t> per_cpu(max_cpu + 1, 0);
  std::vector<uint64_t> row(column_cpus.size());
  while (!text.empty()) {
    std::string_view line = NextLine(text);
    NextField(line);  // "24:", "LOC:"
    size_t counted = 0;
    for (; counted < row.size(); ++counted) {
      std::optional<uint64_t> value = ParseU64(NextField(line));
      if (!value) break;
      row[counted] = *value;
    }
    if (counted != row.size()) continue;  // a total (ERR, MIS) or a short row
    for (size_t i = 0; i < row.size(); ++i) per_cpu[column_cpus[i]] += row[i];
  }
  return per_cpu;
}

Result<uint64_t> ParseLoadavgThreads(std::string_view text) {
  std::string_view line = NextLine(text);
  for (int i = 0; i < 3; ++i) NextField(line);
  std::string_view tasks = NextField(line);
  size_t slash = tasks.find('/');
  std::optional<uint64_t> total =
      slash == std::string_view::npos ? std::nullopt : ParseU64(tasks.substr(slash + 1));
  if (!total) return LineError(1, "field 4 '" + std::string(tasks) + "' is not running/total");
  return *total;
}

Result<std::vector<DiskStats>> ParseDiskStats(std::string_view text) {
  std::vector<DiskStats> disks;
  for (int line_number = 1; !text.empty(); ++line_number) {
    std::string_view line = NextLine(text);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    DiskStats disk;
    uint64_t major = 0, minor = 0, unused = 0, weighted_ms = 0;
    Status status = ReadNumbers(line, line_number, {&major, &minor});
    if (!status.ok()) return status;
    disk.major = static_cast<uint32_t>(major);
    disk.minor = static_cast<uint32_t>(minor);
    disk.name = NextField(line);
    // Before Linux 2.6.25 partitions had 4 fields of other meanings; every kernel since prints
    // at least 11, which is what this needs.
    std::string_view rest = line;
    int fields = 0;
    while (!NextField(rest).empty()) ++fields;
    if (disk.name.empty() || fields < 11) {
      return LineError(line_number, "expected a name and at least 11 numbers");
    }
    status = ReadNumbers(
        line, line_number,
        {&disk.reads, &unused, &disk.read_sectors, &disk.read_ms, &disk.writes, &unused,
         &disk.write_sectors, &disk.write_ms, &disk.in_flight, &disk.busy_ms, &weighted_ms});
    if (!status.ok()) return status;
    disks.push_back(std::move(disk));
  }
  return disks;
}

Result<std::vector<MountEntry>> ParseMountInfo(std::string_view text) {
  std::vector<MountEntry> mounts;
  for (int line_number = 1; !text.empty(); ++line_number) {
    std::string_view line = NextLine(text);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    MountEntry mount;
    NextField(line);  // mount id
    NextField(line);  // parent id
    std::string_view device = NextField(line);
    if (!ParseDeviceNumber(device, mount.major, mount.minor)) {
      return LineError(line_number, "'" + std::string(device) + "' is not MAJOR:MINOR");
    }
    NextField(line);  // root of the mount within its file system
    mount.mount_point = UnescapeOctal(NextField(line));
    // Mount options, then optional fields up to the "-" separator.
    std::string_view field;
    do {
      field = NextField(line);
    } while (!field.empty() && field != "-");
    NextField(line);  // file system type
    std::string_view source = NextField(line);
    if (field.empty() || mount.mount_point.empty() || source.empty()) {
      return LineError(line_number, "expected a mount point and '- type source' fields");
    }
    mount.source = UnescapeOctal(source);
    mounts.push_back(std::move(mount));
  }
  return mounts;
}

Result<std::vector<NetDevStats>> ParseNetDev(std::string_view text) {
  std::vector<NetDevStats> interfaces;
  NextLine(text);  // two header lines
  NextLine(text);
  for (int line_number = 3; !text.empty(); ++line_number) {
    std::string_view line = NextLine(text);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      return LineError(line_number, "no 'name:' in the line");
    }
    std::string_view name_part = line.substr(0, colon);
    line.remove_prefix(colon + 1);  // old kernels run large numbers into the colon
    NetDevStats stats;
    stats.name = NextField(name_part);
    uint64_t unused = 0;
    Status status =
        ReadNumbers(line, line_number,
                    {&stats.rx_bytes, &stats.rx_packets, &stats.rx_errors, &stats.rx_drops, &unused,
                     &unused, &unused, &stats.rx_multicast, &stats.tx_bytes, &stats.tx_packets,
                     &stats.tx_errors, &stats.tx_drops});
    if (!status.ok()) return status;
    if (stats.name.empty()) return LineError(line_number, "empty interface name");
    interfaces.push_back(std::move(stats));
  }
  return interfaces;
}

Result<ProcessStat> ParseProcessStat(std::string_view text) {
  // "pid (comm) state ppid ...": comm may hold spaces and ')' itself, so it ends at the
  // last ')'.
  size_t open = text.find('(');
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return Status::Error("no '(name)' field");
  }
  ProcessStat stat;
  stat.name = text.substr(open + 1, close - open - 1);
  text.remove_prefix(close + 1);
  std::string_view line = NextLine(text);
  std::string_view state = NextField(line);
  if (state.size() != 1) {
    return Status::Error("field 3 (state) '" + std::string(state) + "' is not one letter");
  }
  stat.state = state[0];
  // The fields kept, by their number in proc(5); some skipped ones can be negative (tty,
  // priority, nice).
  uint64_t ppid = 0, flags = 0;
  const std::pair<int, uint64_t*> kept[] = {{4, &ppid},
                                            {9, &flags},
                                            {10, &stat.minor_faults},
                                            {12, &stat.major_faults},
                                            {14, &stat.user_ticks},
                                            {15, &stat.system_ticks},
                                            {20, &stat.num_threads},
                                            {22, &stat.start_ticks},
                                            {23, &stat.virtual_bytes}};
  int number = 3;
  for (auto [wanted, target] : kept) {
    std::string_view field;
    while (number < wanted) {
      field = NextField(line);
      ++number;
    }
    std::optional<uint64_t> value = ParseU64(field);
    if (!value) {
      return Status::Error("field " + std::to_string(wanted) + " '" + std::string(field) +
                           "' is not a number");
    }
    *target = *value;
  }
  stat.ppid = static_cast<int32_t>(ppid);
  constexpr uint64_t kPfKthread = 0x00200000;  // <linux/sched.h>
  stat.kernel_thread = (flags & kPfKthread) != 0;
  return stat;
}

Result<ProcessPages> ParseStatm(std::string_view text) {
  ProcessPages pages;
  uint64_t text_pages = 0, lib_pages = 0;
  std::string_view line = NextLine(text);
  Status status = ReadNumbers(
      line, 1, {&pages.size, &pages.resident, &pages.shared, &text_pages, &lib_pages, &pages.data});
  if (!status.ok()) return status;
  return pages;
}

}  // namespace perfhive
