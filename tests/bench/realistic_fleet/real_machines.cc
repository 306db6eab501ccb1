#include "tests/bench/realistic_fleet/real_machines.h"

#include "perfdata/title_database_file.h"
#include "port/env.h"

namespace perfhive::fleet {
namespace {

namespace fs = std::filesystem;

constexpr char kZenoss[] = "realdata/zenoss-windowsmonitor";
constexpr char kRust[] = "realdata/windows-rust-counters";
// windows-rust-counters has no title database; its machine ran Windows 10 in 2020, as did the
// host of this dump (build 19041), and system objects keep their indexes across hosts.
constexpr char kWindows10Titles[] = "title-databases/rosenste+github-upload.PerfStringBackup.INI";

// The zenoss pairs, older sample first: wrxxcrpisax01's "-1" is its older sample.
struct ZenossPair {
  const char* name;
  const char* older;
  const char* newer;
};
constexpr ZenossPair kZenossPairs[] = {
    {"kinex01", "kinex01-0.perf", "kinex01-1.perf"},
    {"s-exch2007-64", "s-exch2007-64-0.perf", "s-exch2007-64-1.perf"},
    {"win2003", "win2003-0.perf", "win2003-1.perf"},
    {"wprepw01", "wprepw01-0.perf", "wprepw01-1.perf"},
    {"wrxxcrpisax01", "wrxxcrpisax01-1.perf", "wrxxcrpisax01-0.perf"},
};

Result<std::vector<uint8_t>> Read(const fs::path& path) {
  Result<std::vector<uint8_t>> bytes = Env::Default().ReadFile(path.string());
  if (!bytes.ok()) return bytes.status().Prefixed("fleet fixtures: ");
  return bytes;
}

}  // namespace

fs::path FirstRealMachineFile(const fs::path& fixtures_root) {
  return fixtures_root / kZenoss / kZenossPairs[0].older;
}

Result<std::vector<RealMachine>> ReadRealMachines(const fs::path& fixtures_root) {
  std::vector<RealMachine> machines;
  for (const ZenossPair& pair : kZenossPairs) {
    RealMachine machine{.name = pair.name, .titles_source = std::string(pair.name) + ".counters"};
    RealReply reply;
    Result<std::vector<uint8_t>> older = Read(fixtures_root / kZenoss / pair.older);
    if (!older.ok()) return older.status();
    Result<std::vector<uint8_t>> newer = Read(fixtures_root / kZenoss / pair.newer);
    if (!newer.ok()) return newer.status();
    Result<std::vector<uint8_t>> titles = Read(fixtures_root / kZenoss / machine.titles_source);
    if (!titles.ok()) return titles.status();
    machine.replies.push_back({std::move(older).value(), std::move(newer).value()});
    machine.titles = std::move(titles).value();
    machines.push_back(std::move(machine));
  }

  RealMachine getaway{.name = "getaway", .titles_source = kWindows10Titles};
  for (const char* file : {"system-2.bin", "processor-238.bin"}) {
    Result<std::vector<uint8_t>> sample = Read(fixtures_root / kRust / file);
    if (!sample.ok()) return sample.status();
    getaway.replies.push_back({std::move(sample).value(), {}});
  }
  Result<std::vector<uint8_t>> dump = Read(fixtures_root / kWindows10Titles);
  if (!dump.ok()) return dump.status();
  Result<TitleDatabase> titles = LoadTitleDatabase(*dump);
  if (!titles.ok())
    return titles.status().Prefixed("fleet fixtures: " + getaway.titles_source + ": ");
  getaway.titles = titles->EncodeNames();
  machines.push_back(std::move(getaway));
  return machines;
}

}  // namespace perfhive::fleet
