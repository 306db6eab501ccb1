// MsrrpSource against a real peer: a private Samba on loopback serving performance data this
// test writes (tests/support/samba_server.h). Labelled e2e; skipped where Samba cannot run.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>

#include "perfdata/snapshot_reader.h"
#include "perfdata/text_encoding.h"
#include "perfdata/title_database.h"
#include "perfdata/title_list.h"
#include "sources/msrrp/msrrp_source.h"
#include "tests/support/child_process.h"
#include "tests/support/samba_server.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::SambaCounter;
using testing::SambaObject;
using testing::SambaPerfData;
using testing::SambaServer;
using testing::SambaServerOptions;

constexpr uint32_t kRawCount = 0x00010000;       // PERF_COUNTER_RAWCOUNT
constexpr uint32_t kLargeRawCount = 0x00010100;  // PERF_COUNTER_LARGE_RAWCOUNT
constexpr uint32_t kBulkCount = 0x10410500;      // PERF_COUNTER_BULK_COUNT

// Indexes as SambaServer assigns them: 2, 4, 6, ... in order.
SambaPerfData Fleet(uint64_t step) {
  return SambaPerfData{
      .perf_time = 1000000 + step,
      .perf_time_100ns = 133500000000000000 + step,
      .perf_freq = 10000000,
      .objects = {
          SambaObject{.name = "Widget",  // 2; counters 4, 6, 8
                      .instances = {"alpha", "beta", "gr\xC3\xBCn"},
                      .counters = {{"Widgets Made", kRawCount, 0, {11 + step, 22, 33}},
                                   {"Bytes Moved", kBulkCount, 0, {1 << 20, 5000000000, 7}},
                                   {"Queue Length", kLargeRawCount, 0, {0, 1, 4503599627370496}}}},
          SambaObject{.name = "Host",  // 10; counter 12
                      .instances = {},
                      .counters = {{"Uptime Seconds", kLargeRawCount, 86400 + step, {}}}},
      }};
}

SmbCredentials Account(std::string user, std::string password) {
  return {.user = std::move(user), .password = std::move(password), .domain = ""};
}

MsrrpSourceOptions WithTimeout(std::chrono::milliseconds timeout) {
  MsrrpSourceOptions options;
  options.call_timeout = timeout;
  return options;
}

// Instance name → counter index → value, for one object of a snapshot.
using Values = std::map<std::string, std::map<uint32_t, uint64_t>>;
Values Decode(const SnapshotReader& snapshot, uint32_t object_index) {
  Values values;
  std::optional<ObjectView> object = snapshot.FindObject(object_index);
  if (!object) return values;
  for (const InstanceView& instance : object->instances()) {
    std::string name = instance.has_definition() ? Utf16LeToUtf8(instance.raw_name()) : "";
    for (const CounterDefinitionView& counter : object->counters()) {
      values[name][counter.name_index()] = instance.counters().Value(counter).value_or(~0ull);
    }
  }
  return values;
}

class MsrrpSmbdTest : public ::testing::Test {
 protected:
  // A skip here ends the test; one inside Start() would only end Start(), and the test would go
  // on without a server.
  void SetUp() override {
    if (std::string why = SambaServer::Unavailable(); !why.empty()) GTEST_SKIP() << why;
  }
  void Start(SambaServerOptions options = {}) {
    server_.emplace(options);
    ASSERT_TRUE(server_->ready()) << server_->log();
  }
  SmbCredentials Credentials() const {
    return Account(server_->options().user, server_->options().password);
  }
  MsrrpSource Source(SmbCredentials credentials, MsrrpSourceOptions options = {}) {
    return MsrrpSource(*ParseRemoteTarget(server_->target()), std::move(credentials),
                       std::move(options));
  }
  std::optional<SambaServer> server_;
};

TEST_F(MsrrpSmbdTest, ReadsTheObjectsInstancesAndValuesTheServerWasGiven) {
  Start();
  server_->Write(Fleet(0));
  MsrrpSourceOptions options;
  options.hkpd.reader.initial_buffer_bytes = 64;  // Samba cuts, the reader must grow
  MsrrpSource source = Source(Credentials(), options);

  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  Result<SnapshotReader> snapshot = SnapshotReader::Open(*bytes);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  EXPECT_EQ(snapshot->num_objects(), 2u);
  EXPECT_EQ(snapshot->perf_time(), 1000000);
  EXPECT_EQ(snapshot->perf_freq(), 10000000);
  EXPECT_EQ(snapshot->perf_time_100ns(), 133500000000000000);
  Values widget = Decode(*snapshot, 2);
  ASSERT_EQ(widget.size(), 3u);
  EXPECT_EQ(widget["alpha"][4], 11u);
  EXPECT_EQ(widget["beta"][4], 22u);
  EXPECT_EQ(widget["gr\xC3\xBCn"][4], 33u);
  EXPECT_EQ(widget["alpha"][6], 1u << 20);
  EXPECT_EQ(widget["beta"][6], 5000000000u);
  EXPECT_EQ(widget["gr\xC3\xBCn"][8], 4503599627370496u);
  EXPECT_EQ(Decode(*snapshot, 10)[""][12], 86400u);

  // The server's data moves; the next poll on the same connection sees it.
  server_->Write(Fleet(5));
  bytes = source.TakeSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  snapshot = SnapshotReader::Open(*bytes);
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(Decode(*snapshot, 2)["alpha"][4], 16u);
  EXPECT_EQ(Decode(*snapshot, 10)[""][12], 86405u);
  EXPECT_EQ(snapshot->perf_time(), 1000005);
}

// The Linux poller lists a Windows host's services over MS-RRP (BaseRegEnumKey) like a Windows
// agent does through advapi32: a provider disabled in Samba's registry (Samba's own services,
// LanmanServer, Eventlog, Tcpip and Netlogon, have no Performance key) is found with its library,
// and one enabled again is not.
TEST_F(MsrrpSmbdTest, FindsAProviderDisabledInTheRemoteRegistry) {
  Start();
  const std::string key = "HKLM\\SYSTEM\\CurrentControlSet\\Services\\PerfhiveTest\\Performance";
  ASSERT_TRUE(server_->SetRegistryValue(key, "Disable Performance Counters", "dword", "1"))
      << server_->log();
  ASSERT_TRUE(server_->SetRegistryValue(key, "Library", "sz", "perfhive-test.dll"))
      << server_->log();
  ASSERT_TRUE(server_->SetRegistryValue(key, "Object List", "sz", "238 510")) << server_->log();
  MsrrpSource source = Source(Credentials());
  Result<std::vector<DisabledProvider>> disabled = source.DisabledProviders();
  ASSERT_TRUE(disabled.ok()) << disabled.error() << server_->log();
  EXPECT_EQ(*disabled, (std::vector<DisabledProvider>{{.service = "PerfhiveTest",
                                                       .disable_value = 1,
                                                       .library = "perfhive-test.dll",
                                                       .object_indexes = {238, 510}}}));

  ASSERT_TRUE(server_->SetRegistryValue(key, "Disable Performance Counters", "dword", "0"));
  disabled = source.DisabledProviders();
  ASSERT_TRUE(disabled.ok()) << disabled.error();
  EXPECT_TRUE(disabled->empty());
}

TEST_F(MsrrpSmbdTest, ReadsTheTitleDatabaseOnceUntilItChanges) {
  Start();
  server_->Write(Fleet(0));
  MsrrpSource source = Source(Credentials());
  Result<std::optional<std::vector<TitleBytes>>> first = source.ReadTitlesIfChanged();
  ASSERT_TRUE(first.ok()) << first.error();
  ASSERT_TRUE(first->has_value());
  TitleDatabase titles;
  ASSERT_TRUE(ParseTitleList((*first)->front().counters, false, titles).ok());
  ASSERT_TRUE(ParseTitleList((*first)->front().helps, true, titles).ok());
  EXPECT_EQ(titles.Name(2), "Widget");
  EXPECT_EQ(titles.Name(6), "Bytes Moved");
  EXPECT_EQ(titles.Name(12), "Uptime Seconds");
  EXPECT_EQ(titles.Help(3), "Widget help");

  Result<std::optional<std::vector<TitleBytes>>> again = source.ReadTitlesIfChanged();
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_FALSE(again->has_value()) << "unchanged titles are not handed on twice";
}

TEST_F(MsrrpSmbdTest, ManyInstancesArriveInManyFragments) {
  Start();
  SambaObject big{.name = "Thread", .instances = {}, .counters = {}};
  big.counters = {{"Switches", kLargeRawCount, 0, {}}, {"Priority", kRawCount, 0, {}}};
  for (uint64_t i = 0; i < 3000; ++i) {
    big.instances.push_back("worker-" + std::to_string(i));
    big.counters[0].per_instance.push_back(i * 1000 + 7);
    big.counters[1].per_instance.push_back(i % 32);
  }
  server_->Write(SambaPerfData{.perf_time = 1, .objects = {big}});
  MsrrpSource source = Source(Credentials());
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_GT(bytes->size(), 50u * 4280u) << "more than fifty 4280-byte fragments";
  Result<SnapshotReader> snapshot = SnapshotReader::Open(*bytes);
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  Values threads = Decode(*snapshot, 2);
  ASSERT_EQ(threads.size(), 3000u);
  EXPECT_EQ(threads["worker-0"][4], 7u);
  EXPECT_EQ(threads["worker-2999"][4], 2999007u);
  EXPECT_EQ(threads["worker-1234"][6], 1234u % 32);
}

TEST_F(MsrrpSmbdTest, WrongPasswordIsAccessDeniedWithoutThePassword) {
  Start();
  server_->Write(Fleet(0));
  const std::string wrong = "Not-The-Password-42";
  MsrrpSource source = Source(Account(server_->options().user, wrong));
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kPermissionDenied) << bytes.error();
  EXPECT_THAT(bytes.error(), HasSubstr(server_->target()));
  EXPECT_THAT(bytes.error(), HasSubstr("access denied"));
  EXPECT_THAT(bytes.error(), Not(HasSubstr(wrong)));
  // While it backs off, the error stays classified and still leaves the password out.
  Result<std::vector<uint8_t>> waiting = source.TakeSnapshot("Global");
  EXPECT_EQ(waiting.status().code(), StatusCode::kPermissionDenied) << waiting.error();
  EXPECT_THAT(waiting.error(), HasSubstr("ms between attempts"));
  EXPECT_THAT(waiting.error(), Not(HasSubstr(wrong)));
}

TEST_F(MsrrpSmbdTest, AnonymousAccessIsRefused) {
  Start();
  server_->Write(Fleet(0));
  MsrrpSource source = Source(Account("", ""));
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kPermissionDenied) << bytes.error();
}

TEST_F(MsrrpSmbdTest, WorksWithAServerThatRequiresSigning) {
  Start({.require_signing = true});
  server_->Write(Fleet(0));
  MsrrpSource source = Source(Credentials());
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  Result<SnapshotReader> snapshot = SnapshotReader::Open(*bytes);
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(Decode(*snapshot, 2)["beta"][4], 22u);
}

TEST_F(MsrrpSmbdTest, ServerGoneMidPollIsUnavailableThenBacksOff) {
  Start();
  server_->Write(Fleet(0));
  MsrrpSource source = Source(Credentials());
  ASSERT_TRUE(source.TakeSnapshot("Global").ok());
  server_->Stop();
  Result<std::vector<uint8_t>> lost = source.TakeSnapshot("Global");
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), StatusCode::kUnavailable) << lost.error();
  EXPECT_THAT(lost.error(), HasSubstr(server_->target()));
  EXPECT_FALSE(source.connected());
  auto start = std::chrono::steady_clock::now();
  Result<std::vector<uint8_t>> waiting = source.TakeSnapshot("Global");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100))
      << "a host in backoff costs nothing";
  EXPECT_THAT(waiting.error(), HasSubstr("ms between attempts"));
}

TEST_F(MsrrpSmbdTest, RegistryServiceNotRunningIsSaidSo) {
  Start();
  server_->Write(Fleet(0));
  server_->StopRegistryService();
  MsrrpSource source = Source(Credentials());
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kNotFound) << bytes.error();
  EXPECT_THAT(bytes.error(), HasSubstr("Remote Registry service is not running"));
}

TEST_F(MsrrpSmbdTest, ASlowServerTimesOut) {
  Start();
  server_->Write(Fleet(0));
  MsrrpSource source = Source(Credentials(), WithTimeout(std::chrono::milliseconds(1500)));
  ASSERT_TRUE(source.TakeSnapshot("Global").ok());
  server_->Pause();
  auto start = std::chrono::steady_clock::now();
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  auto took = std::chrono::steady_clock::now() - start;
  server_->Resume();
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kDeadlineExceeded) << bytes.error();
  EXPECT_THAT(bytes.error(), HasSubstr(server_->target()));
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST_F(MsrrpSmbdTest, ASlowServerTimesOutWhileConnecting) {
  Start();
  server_->Pause();
  MsrrpSource source = Source(Credentials(), WithTimeout(std::chrono::milliseconds(1500)));
  auto start = std::chrono::steady_clock::now();
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  auto took = std::chrono::steady_clock::now() - start;
  server_->Resume();
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kDeadlineExceeded) << bytes.error();
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST(MsrrpUnreachable, AClosedPortIsUnavailableNamingTheHost) {
  // A port nothing listens on: bound and released by SambaServer's own helper would race, so
  // the discard port of loopback, which a test machine does not serve.
  MsrrpSource source(*ParseRemoteTarget("\\\\127.0.0.1:9"), Account("u", "p"),
                     WithTimeout(std::chrono::milliseconds(2000)));
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kUnavailable) << bytes.error();
  EXPECT_THAT(bytes.error(), HasSubstr("\\\\127.0.0.1:9"));
}

TEST_F(MsrrpSmbdTest, AgentWritesASnapshotAndTitlesFromTheTarget) {
  Start();
  server_->Write(Fleet(0));
  std::string credentials = server_->directory() + "/agent.cred";
  std::ofstream(credentials) << "username = " << server_->options().user
                             << "\npassword = " << server_->options().password << "\n";
  std::string output = server_->directory() + "/snapshot.bin";
  std::string titles = server_->directory() + "/titles.bin";
  testing::ChildProcess agent(
      {PERFHIVE_AGENT_PATH, "snapshot", "--target", server_->target(), "--credentials", credentials,
       "--output", output, "--titles-output", titles},
      server_->directory() + "/agent.out", server_->directory() + "/agent.out");
  ASSERT_EQ(agent.Wait(std::chrono::seconds(30)), 0)
      << testing::ReadWholeFile(server_->directory() + "/agent.out");
  std::string bytes = testing::ReadWholeFile(output);
  Result<SnapshotReader> snapshot =
      SnapshotReader::Open(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  EXPECT_EQ(Decode(*snapshot, 2)["alpha"][4], 11u);
  std::string names = testing::ReadWholeFile(titles);
  TitleDatabase database;
  ASSERT_TRUE(
      ParseTitleList(std::span(reinterpret_cast<const uint8_t*>(names.data()), names.size()), false,
                     database)
          .ok());
  EXPECT_EQ(database.Name(10), "Host");
}

}  // namespace
}  // namespace perfhive
