// The Windows sources' logic through the registry seam, with builder-made blobs and scripted
// failures: buffer growth, busy, truncation, malformed blocks, titles and their changes, remote
// connections, failures and backoff.

#include "agent/hkpd_source.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/hkpd_reader.h"
#include "perfdata/byte_order.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/winperf.h"
#include "tests/agent/fake_registry.h"

namespace perfhive {
namespace {

using ::testing::ElementsAre;
using testing::FakeRegistry;
using ::testing::HasSubstr;

constexpr char kPerflib[] = "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib";

// A snapshot of `bytes_wanted` bytes or a little more: Process with enough instances.
std::vector<uint8_t> SnapshotOfAbout(size_t bytes_wanted) {
  SnapshotBuilder builder;
  builder.set_system_name("WINHOST");
  ObjectBuilder& process = builder.AddObject(230);
  uint32_t cpu = process.AddCounter({.name_index = 6, .type = winperf::k100NsecTimer});
  while (builder.Build().size() < bytes_wanted) {
    uint32_t i = process.AddInstance("svchost");
    process.SetValue(i, cpu, i);
  }
  return builder.Build();
}

std::vector<uint8_t> Utf16MultiSz(std::initializer_list<const char*> strings) {
  std::vector<uint8_t> out;
  for (const char* s : strings) {
    for (const char* p = s; *p; ++p) out.insert(out.end(), {static_cast<uint8_t>(*p), 0});
    out.insert(out.end(), {0, 0});
  }
  out.insert(out.end(), {0, 0});
  return out;
}

HkpdReaderOptions Options(std::vector<std::chrono::milliseconds>* sleeps = nullptr) {
  HkpdReaderOptions options;
  options.initial_buffer_bytes = 1024;
  options.max_buffer_bytes = 64 * 1024;
  options.busy_retries = 3;
  options.sleep = [sleeps](std::chrono::milliseconds d) {
    if (sleeps) sleeps->push_back(d);
  };
  return options;
}

TEST(HkpdReaderTest, GrowsGeometricallyWithoutTrustingTheReportedSize) {
  FakeRegistry registry;
  registry.values[{"HKPD", "Global"}] = {SnapshotOfAbout(5000)};
  registry.more_data_size = 0;  // as Wine reports it
  HkpdReader reader(registry, FakeRegistry::kPerformanceData, "HKEY_PERFORMANCE_DATA", Options());
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(*bytes, (registry.values[{"HKPD", "Global"}].bytes));
  EXPECT_THAT(registry.query_buffer_sizes, ElementsAre(1024, 2048, 4096, 8192));
  // The next read starts from the size that worked.
  registry.query_buffer_sizes.clear();
  ASSERT_TRUE(reader.ReadSnapshot("Global").ok());
  EXPECT_THAT(registry.query_buffer_sizes, ElementsAre(8192));
}

TEST(HkpdReaderTest, GrowsWhenATruncatedReplyFillsTheBuffer) {
  // Samba answers "Global" with success and a block cut to the buffer's size.
  FakeRegistry registry;
  registry.values[{"HKPD", "Global"}] = {SnapshotOfAbout(3000)};
  registry.truncate_instead_of_more_data = true;
  HkpdReader reader(registry, FakeRegistry::kPerformanceData, "HKEY_PERFORMANCE_DATA", Options());
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_EQ(bytes->size(), (registry.values[{"HKPD", "Global"}].bytes.size()));
  EXPECT_THAT(registry.query_buffer_sizes, ElementsAre(1024, 2048, 4096));
}

TEST(HkpdReaderTest, StopsAtTheCeilingWithAClearError) {
  FakeRegistry registry;
  registry.values[{"HKPD", "Global"}] = {SnapshotOfAbout(70 * 1024)};
  registry.more_data_size = 1'000'000'000;  // a lie: never trusted
  HkpdReader reader(registry, FakeRegistry::kPerformanceData, "HKEY_PERFORMANCE_DATA", Options());
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "HKEY_PERFORMANCE_DATA \"Global\": the reply needs more than 65536 bytes, the buffer "
            "ceiling");
  EXPECT_EQ(registry.query_buffer_sizes.back(), 65536u);
}

TEST(HkpdReaderTest, RetriesBusyABoundedNumberOfTimes) {
  FakeRegistry registry;
  registry.values[{"HKPD", "230"}] = {SnapshotOfAbout(500)};
  registry.scripted_errors["230"] = {win_error::kBusy, win_error::kBusy};
  std::vector<std::chrono::milliseconds> sleeps;
  HkpdReader reader(registry, FakeRegistry::kPerformanceData, "HKEY_PERFORMANCE_DATA",
                    Options(&sleeps));
  ASSERT_TRUE(reader.ReadSnapshot("230").ok());
  EXPECT_EQ(sleeps.size(), 2u);

  registry.scripted_errors["230"] = {170, 170, 170, 170, 170};
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("230");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "HKEY_PERFORMANCE_DATA \"230\": still busy after 3 retries (170 "
            "(ERROR_BUSY: the requested resource is in use))");
  EXPECT_EQ(reader.last_error_code(), 170);
}

TEST(HkpdReaderTest, ReportsOtherErrorsWithTheirMeaning) {
  FakeRegistry registry;
  registry.scripted_errors["Global"] = {win_error::kAccessDenied};
  HkpdReader reader(registry, FakeRegistry::kPerformanceData, "HKEY_PERFORMANCE_DATA", Options());
  Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "HKEY_PERFORMANCE_DATA \"Global\": RegQueryValueExW failed with 5 "
            "(ERROR_ACCESS_DENIED: access is denied)");
  EXPECT_FALSE(reader.ReadSnapshot("").ok());
}

TEST(HkpdReaderTest, RejectsAMalformedBlockBeforeHandingItOn) {
  FakeRegistry registry;
  std::vector<uint8_t> bytes = SnapshotOfAbout(500);
  StoreU32(&bytes[winperf::data_block::kHeaderLength], 4);
  registry.values[{"HKPD", "Global"}] = {bytes};
  HkpdReader reader(registry, FakeRegistry::kPerformanceData, "HKEY_PERFORMANCE_DATA", Options());
  Result<std::vector<uint8_t>> got = reader.ReadSnapshot("Global");
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.error(), HasSubstr("\"Global\" returned a malformed block: data block at byte "
                                     "0: HeaderLength 4 is smaller than PERF_DATA_BLOCK"));
}

TEST(LocalHkpdSourceTest, ReadsTitlesFromThePerformanceKeyAndClosesItOnShutdown) {
  FakeRegistry registry;
  registry.values[{"HKPD", "Counter 009"}] = {Utf16MultiSz({"1", "1847", "2", "System"}),
                                              kRegMultiSz};
  registry.values[{"HKPD", "Help 009"}] = {Utf16MultiSz({"3", "The System object"}), kRegMultiSz};
  {
    LocalHkpdSource source(registry, Options());
    Result<TitleBytes> titles = source.ReadTitles();
    ASSERT_TRUE(titles.ok()) << titles.error();
    EXPECT_EQ(titles->counters, Utf16MultiSz({"1", "1847", "2", "System"}));
    EXPECT_EQ(titles->helps, Utf16MultiSz({"3", "The System object"}));
  }
  EXPECT_EQ(registry.calls.back(), "close HKPD");
}

TEST(LocalHkpdSourceTest, FallsBackToPerflibWhenThePerformanceKeyHasNoTitles) {
  FakeRegistry registry;
  std::string perflib009 = std::string(kPerflib) + "\\009";
  registry.values[{perflib009, "Counter"}] = {Utf16MultiSz({"2", "System"}), kRegMultiSz};
  registry.values[{perflib009, "Help"}] = {Utf16MultiSz({"3", "help"}), kRegMultiSz};
  LocalHkpdSource source(registry, Options());
  Result<TitleBytes> titles = source.ReadTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  EXPECT_EQ(titles->counters, Utf16MultiSz({"2", "System"}));
  EXPECT_EQ(registry.open_keys, 0);  // the Perflib key was closed again
}

TEST(LocalHkpdSourceTest, TitlesAreSentAgainOnlyAfterTheyChange) {
  FakeRegistry registry;
  registry.values[{"HKPD", "Counter 009"}] = {Utf16MultiSz({"2", "System"}), kRegMultiSz};
  registry.values[{"HKPD", "Help 009"}] = {Utf16MultiSz({"3", "help"}), kRegMultiSz};
  LocalHkpdSource source(registry, Options());

  // No Last Counter on this host (as under Wine): the digest decides.
  auto first = source.ReadTitlesIfChanged();
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->has_value());
  EXPECT_FALSE(source.ReadTitlesIfChanged()->has_value());

  // lodctr /R: new names, and Perflib's Last Counter appears.
  registry.values[{"HKPD", "Counter 009"}] = {Utf16MultiSz({"2", "System", "4", "Memory"}),
                                              kRegMultiSz};
  std::vector<uint8_t> last_counter(4);
  StoreU32(last_counter.data(), 4);
  registry.values[{kPerflib, "Last Counter"}] = {last_counter, kRegDword};
  auto changed = source.ReadTitlesIfChanged();
  ASSERT_TRUE(changed.ok());
  ASSERT_TRUE(changed->has_value());
  EXPECT_EQ((*changed)->counters, Utf16MultiSz({"2", "System", "4", "Memory"}));

  // With the token in place, an unchanged token skips reading the lists at all.
  registry.calls.clear();
  EXPECT_FALSE(source.ReadTitlesIfChanged()->has_value());
  EXPECT_THAT(registry.calls, ::testing::Not(::testing::Contains(HasSubstr("Counter 009"))));
}

RemoteHkpdOptions RemoteOptions(std::chrono::steady_clock::time_point* now) {
  RemoteHkpdOptions options;
  options.reader = Options();
  options.first_backoff = std::chrono::seconds(1);
  options.max_backoff = std::chrono::seconds(4);
  options.now = [now] { return *now; };
  return options;
}

TEST(RemoteHkpdSourceTest, UnreachableHostIsReportedAndRetriedWithBackoff) {
  FakeRegistry registry;
  std::chrono::steady_clock::time_point now{};
  RemoteHkpdSource source(registry, "nosuchhost", RemoteOptions(&now));
  EXPECT_EQ(source.machine(), "\\\\nosuchhost");

  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "\\\\nosuchhost: RegConnectRegistryW(HKEY_PERFORMANCE_DATA) failed "
            "with 53 (ERROR_BAD_NETPATH: the network path was not found)");
  // Within the backoff, no new connection attempt.
  now += std::chrono::milliseconds(500);
  bytes = source.TakeSnapshot("Global");
  EXPECT_EQ(bytes.error(),
            "\\\\nosuchhost: not connected (last error 53 (ERROR_BAD_NETPATH: the "
            "network path was not found)); next attempt in 500 ms");
  EXPECT_EQ(std::count(registry.calls.begin(), registry.calls.end(), "connect \\\\nosuchhost"), 1);
  // Backoff doubles: 1 s, 2 s, 4 s, then stays at the 4 s ceiling.
  std::vector<long> waits;
  for (int attempt = 0; attempt < 4; ++attempt) {
    now += std::chrono::seconds(10);
    ASSERT_FALSE(source.TakeSnapshot("Global").ok());
    now += std::chrono::milliseconds(1);
    std::string error = source.TakeSnapshot("Global").error();
    waits.push_back(std::stol(error.substr(error.find("next attempt in ") + 16)));
  }
  EXPECT_THAT(waits, ElementsAre(1999, 3999, 3999, 3999));
}

TEST(RemoteHkpdSourceTest, ReconnectsAfterALostConnectionAndOtherHostsGoOn) {
  FakeRegistry registry;
  registry.reachable_machines = {"\\\\good", "\\\\flaky"};
  registry.values[{"\\\\good:HKPD", "Global"}] = {SnapshotOfAbout(500)};
  registry.values[{"\\\\flaky:HKPD", "Global"}] = {SnapshotOfAbout(600)};
  std::chrono::steady_clock::time_point now{};
  RemoteHkpdSource good(registry, "\\\\good", RemoteOptions(&now));
  RemoteHkpdSource flaky(registry, "flaky", RemoteOptions(&now));

  ASSERT_TRUE(flaky.TakeSnapshot("Global").ok());
  registry.scripted_errors["Global"] = {win_error::kRpcServerUnavailable};
  Result<std::vector<uint8_t>> lost = flaky.TakeSnapshot("Global");
  ASSERT_FALSE(lost.ok());
  EXPECT_THAT(lost.error(), HasSubstr("1722 (RPC_S_SERVER_UNAVAILABLE"));
  EXPECT_FALSE(flaky.connected());
  EXPECT_EQ(registry.calls.back(), "close \\\\flaky:HKLM");

  // The other host is unaffected.
  Result<std::vector<uint8_t>> other = good.TakeSnapshot("Global");
  ASSERT_TRUE(other.ok()) << other.error();
  EXPECT_EQ(*other, (registry.values[{"\\\\good:HKPD", "Global"}].bytes));

  now += std::chrono::seconds(2);
  Result<std::vector<uint8_t>> again = flaky.TakeSnapshot("Global");
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_TRUE(flaky.connected());
}

TEST(RemoteHkpdSourceTest, ClosesItsKeysOnShutdown) {
  FakeRegistry registry;
  registry.reachable_machines = {"\\\\good"};
  registry.values[{"\\\\good:HKPD", "Global"}] = {SnapshotOfAbout(500)};
  {
    RemoteHkpdSource source(registry, "good", RemoteOptions(nullptr));
    std::chrono::steady_clock::time_point now{};
    (void)now;
  }
  EXPECT_EQ(registry.open_keys, 0);
  {
    std::chrono::steady_clock::time_point now{};
    RemoteHkpdSource source(registry, "good", RemoteOptions(&now));
    ASSERT_TRUE(source.TakeSnapshot("Global").ok());
    EXPECT_EQ(registry.open_keys, 2);
  }
  EXPECT_EQ(registry.open_keys, 0);
}

}  // namespace
}  // namespace perfhive
