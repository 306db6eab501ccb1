#include "tests/e2e/e2e_cluster.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <thread>

#include "base/byte_order.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"
#include "perfdata/title_list.h"
#include "perfdata/well_known_indexes.h"
#include "perfdata/winperf.h"
#include "port/sha256.h"
#include "sources/procfs/procfs_source.h"

namespace perfhive::testing {
namespace {

namespace ti = title_index;

void WriteFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

ScratchDir::ScratchDir(const std::string& name) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("perfhive-e2e-" + name + "-XXXXXX")).string();
  path_ = mkdtemp(pattern.data());
}

ScratchDir::~ScratchDir() { std::filesystem::remove_all(path_); }

ServerProcess::ServerProcess(const ScratchDir& scratch, std::vector<std::string> extra_flags)
    : data_(scratch / "server-data"),
      log_(scratch / "server.log"),
      address_("127.0.0.1:" + std::to_string(UnusedLoopbackPort())),
      flags_(std::move(extra_flags)) {}

bool ServerProcess::Start() {
  std::vector<std::string> argv = {ServerBinary(), "--listen", address_, "--data", data_};
  argv.insert(argv.end(), flags_.begin(), flags_.end());
  std::string before = ReadWholeFile(log_);
  process_ = std::make_unique<ChildProcess>(argv, log_, log_);
  // The log is appended to across restarts: wait for a new "listening" line.
  for (int i = 0; i < 500; ++i) {
    std::string text = ReadWholeFile(log_);
    if (text.size() > before.size() &&
        text.find("event=listening", before.size()) != std::string::npos) {
      return true;
    }
    if (!process_->running()) break;
    usleep(20'000);
  }
  std::cerr << "perfhive-server did not start:\n" << ReadWholeFile(log_) << "\n";
  return false;
}

void ServerProcess::Kill(int signal) {
  if (process_) process_->Signal(signal);
  if (signal == SIGKILL && process_) process_->Wait(std::chrono::seconds(10));
}

std::optional<int> ServerProcess::Stop() {
  if (!process_) return std::nullopt;
  process_->Signal(SIGTERM);
  return process_->Wait(std::chrono::seconds(20));
}

ReplayDir WriteReplayDir(const ScratchDir& scratch, const std::string& name, int count,
                         int first_second, const std::string& title_suffix,
                         int first_app_exits_at) {
  ReplayDir dir;
  dir.path = scratch / name;
  std::filesystem::create_directories(dir.path);
  TitleDatabase titles;
  titles.AddName(ti::kProcessor, "Processor" + title_suffix);
  titles.AddName(ti::kProcess, "Process" + title_suffix);
  titles.AddName(ti::kMemory, "Memory" + title_suffix);
  titles.AddName(ti::kPercentProcessorTime, "% Processor Time");
  titles.AddName(ti::kIdProcess, "ID Process");
  titles.AddName(ti::kElapsedTime, "Elapsed Time");
  titles.AddName(ti::kAvailableBytes, "Available Bytes");
  dir.titles = titles.EncodeNames();
  WriteFile(dir.path + "/titles.bin", dir.titles);
  for (int i = 0; i < count; ++i) {
    int second = first_second + i;
    SnapshotBuilder builder;
    builder.set_system_name(name)
        .set_system_time({2026, 11, 1, 22, 10, static_cast<uint16_t>(second / 60 % 60),
                          static_cast<uint16_t>(second % 60), 0})
        .set_perf_freq(10'000'000)
        .set_perf_time(int64_t{10'000'000} * second)
        .set_perf_time_100ns(int64_t{10'000'000} * second);
    ObjectBuilder& processor = builder.AddObject(ti::kProcessor);
    processor.set_perf_freq(10'000'000).set_perf_time(int64_t{10'000'000} * second);
    uint32_t busy = processor.AddCounter(
        {.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimerInv});
    for (int cpu = 0; cpu < 2; ++cpu) {
      uint32_t instance = processor.AddInstance(std::to_string(cpu));
      // Idle time grows by (1 - load) per second: cpu0 25% busy, cpu1 50% busy.
      double load = cpu == 0 ? 0.25 : 0.5;
      processor.SetValue(instance, busy,
                         static_cast<uint64_t>(10'000'000 * (1 - load) * second) + 1'000'000'000);
    }
    ObjectBuilder& process = builder.AddObject(ti::kProcess);
    process.set_perf_freq(10'000'000).set_perf_time(int64_t{10'000'000} * second);
    uint32_t cpu = process.AddCounter(
        {.name_index = ti::kPercentProcessorTime, .type = winperf::k100NsecTimer});
    uint32_t pid =
        process.AddCounter({.name_index = ti::kIdProcess, .type = winperf::kCounterRawcount});
    for (int p = 0; p < 3; ++p) {
      if (p == 0 && first_app_exits_at >= 0 && i >= first_app_exits_at) continue;
      uint32_t instance = process.AddInstance(p == 2 ? "svc" : "app");
      process.SetValue(instance, cpu, static_cast<uint64_t>(1'000'000 * (p + 1)) * second);
      process.SetValue(instance, pid, static_cast<uint64_t>(1000 + p));
    }
    ObjectBuilder& memory = builder.AddObject(ti::kMemory);
    memory.set_no_instances();
    uint32_t available = memory.AddCounter(
        {.name_index = ti::kAvailableBytes, .type = winperf::kCounterLargeRawcount});
    memory.SetValue(0, available, uint64_t{4} << 30);
    std::vector<uint8_t> bytes = builder.Build();
    char file[32];
    std::snprintf(file, sizeof file, "/%05d.perf", i);
    WriteFile(dir.path + file, bytes);
    dir.snapshots.push_back(std::move(bytes));
  }
  return dir;
}

ReplayDir WriteReplayFiles(const ScratchDir& scratch, const std::string& name,
                           const std::vector<std::vector<uint8_t>>& snapshots,
                           const std::vector<uint8_t>& titles) {
  ReplayDir dir;
  dir.path = scratch / name;
  std::filesystem::create_directories(dir.path);
  dir.titles = titles;
  WriteFile(dir.path + "/titles.bin", titles);
  for (size_t i = 0; i < snapshots.size(); ++i) {
    char file[32];
    std::snprintf(file, sizeof file, "/%05zu.perf", i);
    WriteFile(dir.path + file, snapshots[i]);
  }
  dir.snapshots = snapshots;
  return dir;
}

ReplayDir RecordThisHost(const ScratchDir& scratch, const std::string& name, int count,
                         std::chrono::milliseconds spacing) {
  Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create();
  if (!source.ok()) {
    ADD_FAILURE() << "cannot read this host: " << source.error();
    return {};
  }
  Result<std::vector<TitleBytes>> titles = (*source)->ReadTitles();
  if (!titles.ok()) {
    ADD_FAILURE() << "cannot read this host's titles: " << titles.error();
    return {};
  }
  std::vector<std::vector<uint8_t>> snapshots;
  for (int i = 0; i < count; ++i) {
    if (i > 0) std::this_thread::sleep_for(spacing);
    Result<std::vector<uint8_t>> raw = (*source)->TakeSnapshot("Global");
    if (!raw.ok()) {
      ADD_FAILURE() << "cannot take a snapshot of this host: " << raw.error();
      return {};
    }
    snapshots.push_back(std::move(raw).value());
  }
  return WriteReplayFiles(scratch, name, snapshots, titles->front().counters);
}

std::string InitServerCa(const ScratchDir& scratch, const std::string& data,
                         const std::vector<std::string>& names) {
  std::vector<std::string> argv = {ServerBinary(), "init", "--data", data};
  argv.insert(argv.end(), names.begin(), names.end());
  CommandResult made = RunCommand(scratch, argv);
  EXPECT_EQ(made.exit_code, 0) << made.err;
  size_t at = made.out.find("sha256:");
  EXPECT_NE(at, std::string::npos) << made.out;
  return made.exit_code != 0 || at == std::string::npos ? "" : made.out.substr(at, 7 + 64);
}

std::vector<uint8_t> WithANewTitle(const std::vector<uint8_t>& titles, const std::string& name) {
  TitleDatabase database;
  EXPECT_TRUE(ParseTitleList(titles, false, database).ok());
  database.AddName(database.last_name_index() + 2, name);
  return database.EncodeNames();
}

std::string ListeningUrl(const ServerProcess& server, const std::string& what) {
  const std::string log = ReadWholeFile(server.log_path());
  const std::regex listening(what + " on (http://127\\.0\\.0\\.1:[0-9]+)");
  std::string url;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), listening);
       it != std::sregex_iterator(); ++it) {
    url = (*it)[1];
  }
  EXPECT_FALSE(url.empty()) << "the server's log says nothing listens for " << what << ":\n" << log;
  return url;
}

std::vector<uint8_t> WithOneValueChanged(std::vector<uint8_t> raw) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  if (!reader.ok()) {
    ADD_FAILURE() << reader.error();
    return raw;
  }
  for (const ObjectView& object : reader->objects()) {
    for (const InstanceView& instance : object.instances()) {
      for (const CounterDefinitionView& counter : object.counters()) {
        if (counter.size() < 4) continue;
        size_t at = static_cast<size_t>(instance.counters().Bytes(counter).data() - raw.data());
        StoreU32(raw.data() + at, LoadU32(raw.data() + at) ^ 1);
        return raw;
      }
    }
  }
  ADD_FAILURE() << "no counter value to change";
  return raw;
}

int64_t WallClockMilliseconds(const std::vector<uint8_t>& raw) {
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  if (!reader.ok()) {
    ADD_FAILURE() << reader.error();
    return 0;
  }
  const SystemTime was = reader->system_time();
  tm utc{};
  utc.tm_year = was.year - 1900;
  utc.tm_mon = was.month - 1;
  utc.tm_mday = was.day;
  utc.tm_hour = was.hour;
  utc.tm_min = was.minute;
  utc.tm_sec = was.second;
  return static_cast<int64_t>(timegm(&utc)) * 1000 + was.milliseconds;
}

std::vector<uint8_t> WithWallClockShifted(std::vector<uint8_t> raw,
                                          std::chrono::milliseconds shift) {
  namespace db = winperf::data_block;
  Result<SnapshotReader> reader = SnapshotReader::Open(raw);
  if (!reader.ok()) {
    ADD_FAILURE() << reader.error();
    return raw;
  }
  const int64_t perf_time_100ns = reader->perf_time_100ns();
  int64_t ms = WallClockMilliseconds(raw) + shift.count();
  tm utc{};
  time_t seconds = static_cast<time_t>(ms / 1000);
  gmtime_r(&seconds, &utc);
  const uint16_t fields[] = {
      static_cast<uint16_t>(utc.tm_year + 1900), static_cast<uint16_t>(utc.tm_mon + 1),
      static_cast<uint16_t>(utc.tm_wday),        static_cast<uint16_t>(utc.tm_mday),
      static_cast<uint16_t>(utc.tm_hour),        static_cast<uint16_t>(utc.tm_min),
      static_cast<uint16_t>(utc.tm_sec),         static_cast<uint16_t>(ms % 1000)};
  for (size_t i = 0; i < std::size(fields); ++i) {
    StoreU16(raw.data() + db::kSystemTime + 2 * i, fields[i]);
  }
  StoreI64(raw.data() + db::kPerfTime100nSec, perf_time_100ns + shift.count() * 10'000);
  return raw;
}

CommandResult RunCommand(const ScratchDir& scratch, std::vector<std::string> argv,
                         std::chrono::milliseconds timeout) {
  static int runs = 0;
  std::string out = scratch / ("command-" + std::to_string(++runs) + ".out");
  std::string err = out + ".err";
  ChildProcess child(std::move(argv), out, err);
  CommandResult result;
  result.exit_code = child.Wait(timeout).value_or(-1);
  result.out = ReadWholeFile(out);
  result.err = ReadWholeFile(err);
  return result;
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

void WriteAgentAndReaderTokens(const ScratchDir& scratch, const std::string& agent_secret,
                               const std::string& agent_hosts, const std::string& reader_secret) {
  WriteText(scratch / "tokens.toml", "[[token]]\nname = \"agents\"\nsecret = \"" + agent_secret +
                                         "\"\nwrite = [\"" + agent_hosts + "\"]\n\n" +
                                         "[[token]]\nname = \"cli\"\nsecret = \"" + reader_secret +
                                         "\"\nread = true\n");
  WriteText(scratch / "agent.token", agent_secret);
  WriteText(scratch / "reader.token", reader_secret);
}

nlohmann::json StoredSnapshots(const ScratchDir& scratch, const ServerProcess& server,
                               const std::string& host, std::vector<std::string> extra) {
  std::vector<std::string> argv = {CliBinary(),      "snapshots", "\\\\" + host, "--server",
                                   server.address(), "--format",  "json"};
  if (extra.empty()) argv.push_back("--insecure");
  argv.insert(argv.end(), extra.begin(), extra.end());
  CommandResult listed = RunCommand(scratch, argv);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  if (listed.exit_code != 0) return nlohmann::json::array();
  return nlohmann::json::parse(listed.out)["snapshots"];
}

std::vector<std::string> HostNames(const ScratchDir& scratch, const ServerProcess& server) {
  CommandResult hosts = RunCommand(scratch, {CliBinary(), "hosts", "--server", server.address(),
                                             "--insecure", "--format", "json"});
  EXPECT_EQ(hosts.exit_code, 0) << hosts.err;
  std::vector<std::string> names;
  if (hosts.exit_code != 0) return names;
  nlohmann::json listed = nlohmann::json::parse(hosts.out)["hosts"];
  for (const auto& host : listed) names.push_back(host["name"]);
  return names;
}

nlohmann::json HostEntry(const ScratchDir& scratch, const ServerProcess& server,
                         const std::string& host, const std::vector<std::string>& cli_flags) {
  std::vector<std::string> argv = {CliBinary(),      "hosts",    "--server",
                                   server.address(), "--format", "json"};
  argv.insert(argv.end(), cli_flags.begin(), cli_flags.end());
  CommandResult listed = RunCommand(scratch, argv);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  if (listed.exit_code != 0) return nullptr;
  nlohmann::json listing = nlohmann::json::parse(listed.out);
  for (const auto& entry : listing["hosts"]) {
    if (entry["name"] == host) return entry;
  }
  return nullptr;
}

bool WaitUntil(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return done();
}

void ExpectStoredExactlyOnce(const ScratchDir& scratch, const ServerProcess& server,
                             const std::string& host, const ReplayDir& dir) {
  nlohmann::json stored = StoredSnapshots(scratch, server, host);
  ASSERT_EQ(stored.size(), dir.snapshots.size()) << host << ": " << stored.dump(1);
  for (size_t i = 0; i < dir.snapshots.size(); ++i) {
    EXPECT_EQ(stored[i]["sha256"], Sha256Hex(dir.snapshots[i])) << host << " snapshot " << i;
    EXPECT_EQ(stored[i]["bytes"], dir.snapshots[i].size());
  }
}

bool MakeCertificates(const ScratchDir& scratch) {
  std::string script =
      "set -e; cd '" + scratch.path() +
      "'\n"
      "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 "
      "  -subj '/CN=perfhive test CA' 2>/dev/null\n"
      "printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > server.ext\n"
      "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr "
      "  -subj '/CN=127.0.0.1' 2>/dev/null\n"
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
      "  -out server.pem -days 2 -extfile server.ext 2>/dev/null\n"
      "openssl req -newkey rsa:2048 -nodes -keyout client.key -out client.csr "
      "  -subj '/CN=agent' 2>/dev/null\n"
      "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial "
      "  -out client.pem -days 2 2>/dev/null\n";
  CommandResult made = RunCommand(scratch, {"/bin/sh", "-c", script});
  if (made.exit_code != 0) ADD_FAILURE() << "openssl failed: " << made.err;
  return made.exit_code == 0;
}

namespace {

std::string BinaryOr(const char* variable, const char* built) {
  const char* other = std::getenv(variable);
  return other != nullptr && *other != '\0' ? other : built;
}

}  // namespace

std::string ServerBinary() { return BinaryOr("PERFHIVE_E2E_SERVER", PERFHIVE_SERVER_BINARY); }
std::string AgentBinary() { return BinaryOr("PERFHIVE_E2E_AGENT", PERFHIVE_AGENT_BINARY); }
std::string CliBinary() { return BinaryOr("PERFHIVE_E2E_CLI", PERFHIVE_CLI_BINARY); }

std::string Sha256Hex(const std::vector<uint8_t>& bytes) { return ToHex(Sha256(bytes)); }

}  // namespace perfhive::testing
