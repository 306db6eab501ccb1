// Issue 20, case 9 ("A host name can be anything"): what agents sent (host names, health
// messages, OS strings, agent versions, instance and counter names) reaches a person only with
// its control characters escaped, one row or one line per thing: in `perfhive hosts`,
// `snapshots` and `query`, in the CLI's errors and in the server's log. Stores written before the
// server refused such names still hold them, and names inside raw snapshots are never refused,
// so most texts here are written straight into the store a real perfhive-server then serves.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "perfdata/snapshot_builder.h"
#include "perfdata/title_database.h"
#include "store/store.h"
#include "tests/e2e/e2e_cluster.h"
#include "tests/server/server_fixture.h"

namespace perfhive::testing {
namespace {

namespace v1 = perfhive::v1;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr int64_t kSeenNs = 1'740'823'200'000'000'000;  // 2025-03-01T10:00:00Z

// The lines of `text`, without their ends.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines of `lines` that start with `prefix`.
std::vector<std::string> LinesStartingWith(const std::vector<std::string>& lines,
                                           const std::string& prefix) {
  std::vector<std::string> found;
  for (const std::string& line : lines) {
    if (line.starts_with(prefix)) found.push_back(line);
  }
  return found;
}

// What a terminal would act on rather than show: every control but the line ends.
bool HasRawControl(const std::string& text) {
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n') || byte == 0x7F) return true;
  }
  return false;
}

HostInfo Host(std::string name) {
  return HostInfo{.name = std::move(name),
                  .os = "Windows Server 2022",
                  .os_version = "10.0.20348",
                  .source_kind = "agent",
                  .agent_version = "1.0",
                  .instance_id = "run-1"};
}

class ShownTextTest : public ::testing::Test {
 protected:
  ShownTextTest() : scratch_("shown-text"), server_(scratch_) {}

  // The store the server is about to serve (ServerProcess keeps it in "server-data"), as an
  // older server left it; closed before the server starts.
  std::unique_ptr<Store> OpenStore() {
    Result<std::unique_ptr<Store>> store = Store::Open(scratch_ / "server-data");
    EXPECT_TRUE(store.ok()) << store.error();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  CommandResult Cli(std::vector<std::string> arguments) {
    std::vector<std::string> argv = {CliBinary()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    argv.insert(argv.end(), {"--server", server_.address(), "--insecure"});
    return RunCommand(scratch_, argv);
  }

  ScratchDir scratch_;
  ServerProcess server_;
};

TEST_F(ShownTextTest, AHostNameWithEscapesIsOneEscapedRowInHosts) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_TRUE(store);
    for (const char* name : {"web01\x1b[31mRED", "evil\nlevel=error event=forged",
                             "\\\\web01\\Process(x)", "サーバー01"}) {
      ASSERT_TRUE(store->catalog().UpsertHost(Host(name), kSeenNs).ok());
    }
  }
  ASSERT_TRUE(server_.Start());
  CommandResult hosts = Cli({"hosts"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  EXPECT_FALSE(HasRawControl(hosts.out)) << hosts.out;
  std::vector<std::string> lines = Lines(hosts.out);
  ASSERT_EQ(lines.size(), 5u) << hosts.out;  // the header and one row per host
  EXPECT_THAT(lines[0], StartsWith("HOST "));
  EXPECT_EQ(LinesStartingWith(lines, "web01\\x1B[31mRED ").size(), 1u) << hosts.out;
  EXPECT_EQ(LinesStartingWith(lines, "evil\\nlevel=error event=forged ").size(), 1u) << hosts.out;
  EXPECT_EQ(LinesStartingWith(lines, "\\\\web01\\Process(x) ").size(), 1u) << hosts.out;
  // Widths count the columns of the escaped text: the next column starts at the same place on
  // every row. (The four kana take 3 bytes and 2 columns each.)
  const size_t os_column = lines[0].find("OS ");
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t kana_bytes_beyond_columns = lines[i].starts_with("サーバー01") ? 4 : 0;
    EXPECT_EQ(lines[i].find("Windows Server 2022"), os_column + kana_bytes_beyond_columns)
        << lines[i];
  }
}

TEST_F(ShownTextTest, AHealthMessageWithEscapesIsOneEscapedRowInHosts) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_TRUE(store);
    HostInfo host = Host("web02");
    host.os = "Windows\x1b]0;owned\x07";  // would set the terminal's title
    host.os_version = "10.0\r";
    host.agent_version = "1.0\x1b[8m";  // would hide what follows
    ASSERT_TRUE(store->catalog().UpsertHost(host, kSeenNs).ok());
    ASSERT_TRUE(
        store->catalog()
            .RecordHostError("web02", "disk \x1b[2J full\r\nlevel=error event=forged", kSeenNs)
            .ok());
  }
  ASSERT_TRUE(server_.Start());
  CommandResult hosts = Cli({"hosts"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  EXPECT_FALSE(HasRawControl(hosts.out)) << hosts.out;
  std::vector<std::string> lines = Lines(hosts.out);
  ASSERT_EQ(lines.size(), 2u) << hosts.out;
  EXPECT_THAT(lines[1], AllOf(StartsWith("web02 "), HasSubstr("Windows\\x1B]0;owned\\x07 10.0\\r"),
                              HasSubstr("1.0\\x1B[8m"),
                              HasSubstr("disk \\x1B[2J full\\r\\nlevel=error event=forged")));
}

TEST_F(ShownTextTest, AHugeHostNameAndHealthMessageAreShownCutWithTheirSize) {
  std::string name(8 << 20, 'a');
  std::string message;
  while (message.size() < (16u << 20)) message += "disk full\r\n";
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->catalog().UpsertHost(Host(name), kSeenNs).ok());
    ASSERT_TRUE(store->catalog().RecordHostError(name, message, kSeenNs).ok());
  }
  ASSERT_TRUE(server_.Start());
  CommandResult hosts = Cli({"hosts"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err.substr(0, 1000);
  EXPECT_LT(hosts.out.size(), 8192u);
  std::vector<std::string> lines = Lines(hosts.out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[1], AllOf(StartsWith("aaaa"), HasSubstr("(8388608 bytes in all)"),
                              HasSubstr("disk full\\r\\ndisk full\\r\\n"),
                              HasSubstr("(" + std::to_string(message.size()) + " bytes in all)")));
}

// JSON keeps every text whole (its escapes lose nothing) and stays JSON whatever a text holds.
TEST_F(ShownTextTest, HostsAsJsonStaysValidWhenAStoredTextIsNotUtf8) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->catalog().UpsertHost(Host("web01\x1b[31mRED"), kSeenNs).ok());
    ASSERT_TRUE(store->catalog().UpsertHost(Host("web02"), kSeenNs).ok());
    ASSERT_TRUE(store->catalog().RecordHostError("web02", "bad \xC3\x28 byte \xFF", kSeenNs).ok());
  }
  ASSERT_TRUE(server_.Start());
  CommandResult hosts = Cli({"hosts", "--format", "json"});
  ASSERT_EQ(hosts.exit_code, 0) << hosts.err;
  EXPECT_FALSE(HasRawControl(hosts.out)) << hosts.out;
  nlohmann::json doc = nlohmann::json::parse(hosts.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(doc.is_discarded()) << hosts.out;
  ASSERT_EQ(doc["hosts"].size(), 2u) << hosts.out;
  EXPECT_EQ(doc["hosts"][0]["name"], "web01\x1b[31mRED");
  EXPECT_EQ(doc["hosts"][1]["name"], "web02");
  // Each byte that is not UTF-8 reads as U+FFFD.
  EXPECT_EQ(doc["hosts"][1]["last_error"], "bad \xEF\xBF\xBD( byte \xEF\xBF\xBD");
}

TEST_F(ShownTextTest, AServerErrorQuotingStoredNamesIsOneEscapedLine) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->catalog().UpsertHost(Host("evil\nlevel=error event=forged"), kSeenNs).ok());
    ASSERT_TRUE(store->catalog().UpsertHost(Host("web01\x1b[31mRED"), kSeenNs).ok());
  }
  ASSERT_TRUE(server_.Start());
  // The server's NotFound names the hosts it knows.
  CommandResult snapshots = Cli({"snapshots", "nosuch"});
  EXPECT_NE(snapshots.exit_code, 0);
  EXPECT_FALSE(HasRawControl(snapshots.err)) << snapshots.err;
  EXPECT_EQ(Lines(snapshots.err).size(), 1u) << snapshots.err;
  EXPECT_THAT(snapshots.err,
              AllOf(StartsWith("perfhive: "), HasSubstr("known hosts"),
                    HasSubstr("evil\\nlevel=error event=forged"), HasSubstr("web01\\x1B[31mRED")));
}

// A Process object whose instance and counter names carry controls, two samples a second apart.
void StoreHostileSnapshots(Store& store) {
  TitleDatabase titles;
  titles.AddName(230, "Process");
  titles.AddName(784, "ID Process");
  titles.AddName(952, "Handle\x1b[2J Count");
  std::vector<uint8_t> counters = titles.EncodeNames();
  Result<Sha256Digest> digest = store.catalog().PutTitleDatabase("009", counters, {});
  ASSERT_TRUE(digest.ok()) << digest.error();
  ASSERT_TRUE(store.catalog().UpsertHost(Host("web03"), kSeenNs).ok());
  ASSERT_TRUE(store.catalog().SetTitlesInForce("web03", "009", *digest, kSeenNs).ok());
  for (uint16_t second = 0; second < 2; ++second) {
    SnapshotBuilder builder;
    builder.set_system_name("WEB03")
        .set_system_time({2025, 3, 6, 1, 10, 0, second, 0})
        .set_perf_freq(10'000'000)
        .set_perf_time(int64_t{10'000'000} * second);
    ObjectBuilder& process = builder.AddObject(230);
    uint32_t pid = process.AddCounter({.name_index = 784, .type = winperf::kCounterRawcount});
    uint32_t handles = process.AddCounter({.name_index = 952, .type = winperf::kCounterRawcount});
    uint32_t evil = process.AddInstance("evil\x1b[31m\nname");
    process.SetValue(evil, pid, 100);
    process.SetValue(evil, handles, 10u + second);
    uint32_t plain = process.AddInstance("plain");
    process.SetValue(plain, pid, 200);
    process.SetValue(plain, handles, 20u + second);
    SnapshotToAppend append{.host = "web03",
                            .query = "Global",
                            .instance_id = "run-1",
                            .sequence = second + 1u,
                            .receive_time_ns = kSeenNs + second * 1'000'000'000LL,
                            .raw = builder.Build()};
    Result<AppendResult> appended = store.Append(std::move(append));
    ASSERT_TRUE(appended.ok()) << appended.error();
  }
}

TEST_F(ShownTextTest, InstanceAndCounterNamesWithControlsAreEscapedInQueryTableAndCsv) {
  {
    std::unique_ptr<Store> store = OpenStore();
    ASSERT_TRUE(store);
    StoreHostileSnapshots(*store);
    if (HasFatalFailure()) return;
  }
  ASSERT_TRUE(server_.Start());
  const std::string path = "\\\\web03\\Process(*)\\Handle*";

  CommandResult table = Cli({"query", path});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_FALSE(HasRawControl(table.out)) << table.out;
  std::vector<std::string> lines = Lines(table.out);
  ASSERT_EQ(lines.size(), 5u) << table.out;  // the header, two series of two points
  int evil_rows = 0;
  for (const std::string& line : lines) {
    if (line.find("evil\\x1B[31m\\nname") != std::string::npos) {
      ++evil_rows;
      EXPECT_THAT(line, HasSubstr("Handle\\x1B[2J Count"));
    }
  }
  EXPECT_EQ(evil_rows, 2) << table.out;

  CommandResult csv = Cli({"query", path, "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::string unterminated = std::regex_replace(csv.out, std::regex("\r\n"), "");
  EXPECT_FALSE(HasRawControl(unterminated) || unterminated.find('\n') != std::string::npos)
      << csv.out;
  std::vector<std::string> rows = Lines(csv.out);
  ASSERT_EQ(rows.size(), 3u) << csv.out;  // the header and one row per sample time
  EXPECT_THAT(rows[0], HasSubstr("(evil\\x1B[31m\\nname)\\Handle\\x1B[2J Count\""));

  // JSON is for programs: its escapes are exact, so the names read back as the host wrote them.
  CommandResult json = Cli({"query", path, "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_FALSE(HasRawControl(json.out)) << json.out;
  nlohmann::json doc = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.out;
  ASSERT_EQ(doc["series"].size(), 2u);
  EXPECT_EQ(doc["series"][0]["instance"], "evil\x1b[31m\nname");
  EXPECT_EQ(doc["series"][0]["counter"], "Handle\x1b[2J Count");

  CommandResult snapshots = Cli({"snapshots", "web03"});
  ASSERT_EQ(snapshots.exit_code, 0) << snapshots.err;
  EXPECT_EQ(Lines(snapshots.out).size(), 3u) << snapshots.out;
}

// What a Hello carries goes into the server's log: the host's name (in the refusal of a Hello
// whose name is no computer name), the agent's version. The log keeps one line per event, whatever
// those texts hold.
TEST_F(ShownTextTest, TheServerLogHasOneEscapedLinePerEvent) {
  ASSERT_TRUE(server_.Start());
  for (const char* host : {"web04", "evil\nlevel=error event=forged\x1b[31m"}) {
    IngestClient client(server_.address());
    v1::AgentMessage message;
    v1::Hello* hello = message.mutable_hello();
    hello->set_protocol_version(1);
    hello->set_host_name(host);
    hello->set_os("Windows");
    hello->set_source_kind(v1::SOURCE_KIND_AGENT);
    hello->set_agent_version("1.0\x1b[31m\r\n2026-01-01T00:00:00.000Z level=error event=forged");
    hello->set_instance_id("run-1");
    ASSERT_TRUE(client.Send(message));
    v1::ServerMessage reply;
    client.Receive(&reply);  // a Welcome, or the end of the stream
    client.Finish();
  }
  ASSERT_TRUE(WaitForMatch(server_.log_path(), "event=hello", std::chrono::seconds(30)));
  server_.Stop();

  std::string log = ReadWholeFile(server_.log_path());
  EXPECT_FALSE(HasRawControl(log)) << log;
  std::vector<std::string> lines = Lines(log);
  // The texts sent are in event lines only, never at the start of one.
  for (const std::string& line : lines) {
    if (line.find("forged") == std::string::npos) continue;
    EXPECT_THAT(line,
                ContainsRegex("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[^ ]+Z level=[a-z]+ event=[a-z_]+ "))
        << "a forged line: " << line;
  }
  std::vector<std::string> hellos;
  for (const std::string& line : lines) {
    if (line.find(" event=hello ") != std::string::npos) hellos.push_back(line);
  }
  ASSERT_EQ(hellos.size(), 1u) << log;
  // logfmt: a value with spaces is quoted, '\' and '"' inside escaped by '\'.
  EXPECT_THAT(hellos[0], HasSubstr(" host=web04 "));
  EXPECT_THAT(hellos[0], HasSubstr(" agent_version=\"1.0\\\\x1B[31m\\\\r\\\\n"
                                   "2026-01-01T00:00:00.000Z level=error event=forged\""));
  // However the server takes the other Hello, the name appears only escaped.
  EXPECT_THAT(log, HasSubstr("evil\\\\nlevel=error event=forged\\\\x1B[31m"));
  EXPECT_THAT(log, Not(HasSubstr("\nlevel=error")));
}

}  // namespace
}  // namespace perfhive::testing
