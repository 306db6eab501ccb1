// The Windows sources against the real registry API. In CI these run under Wine, whose
// HKEY_PERFORMANCE_DATA is real but small; nothing here depends on Wine's particular data.

#include <gtest/gtest.h>
#include <windows.h>

#include <string>

#include "agent/hkpd_reader.h"
#include "agent/hkpd_source.h"
#include "agent/windows/win32_registry_api.h"
#include "perfdata/snapshot_reader.h"

namespace perfhive {
namespace {

std::string ComputerName() {
  wchar_t name[MAX_COMPUTERNAME_LENGTH + 1];
  DWORD length = MAX_COMPUTERNAME_LENGTH + 1;
  EXPECT_TRUE(GetComputerNameW(name, &length));
  std::string narrow;
  for (DWORD i = 0; i < length; ++i) narrow.push_back(static_cast<char>(name[i]));
  return narrow;
}

TEST(Win32RegistryTest, GlobalQueryReturnsAValidBlock) {
  Win32RegistryApi api;
  HkpdReaderOptions options;
  options.initial_buffer_bytes = 1024;  // small on purpose: the grow loop runs for real
  HkpdReader reader(api, api.Predefined(PredefinedKey::kPerformanceData), "HKEY_PERFORMANCE_DATA",
                    options);
  for (const char* query : {"Global", "Costly", "230 238", "2"}) {
    Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot(query);
    ASSERT_TRUE(bytes.ok()) << query << ": " << bytes.error();
    Result<SnapshotReader> snapshot = SnapshotReader::Open(*bytes);
    ASSERT_TRUE(snapshot.ok()) << snapshot.error();
    EXPECT_EQ(snapshot->version(), 1u);
    EXPECT_GT(snapshot->perf_freq(), 0);
    EXPECT_FALSE(snapshot->system_name().empty());
  }
}

TEST(Win32RegistryTest, TitleQueriesReturnMultiSzLists) {
  Win32RegistryApi api;
  LocalHkpdSource source(api);
  Result<TitleBytes> titles = source.ReadTitles();
  ASSERT_TRUE(titles.ok()) << titles.error();
  // UTF-16LE MULTI_SZ: even length, ends with two NUL characters, starts with index "1".
  ASSERT_GE(titles->counters.size(), 8u);
  EXPECT_EQ(titles->counters.size() % 2, 0u);
  EXPECT_EQ(titles->counters[0], '1');
  EXPECT_EQ(titles->counters[1], 0);
  EXPECT_EQ(titles->counters[titles->counters.size() - 1], 0);
  EXPECT_EQ(titles->counters[titles->counters.size() - 3], 0);
  EXPECT_FALSE(titles->helps.empty());
  // Unchanged titles are not sent twice.
  ASSERT_TRUE(source.ReadTitlesIfChanged().ok());
  Result<std::optional<TitleBytes>> again = source.ReadTitlesIfChanged();
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_FALSE(again->has_value());
}

TEST(Win32RegistryTest, ConnectToTheLocalComputerByNameWorks) {
  Win32RegistryApi api;
  RemoteHkpdSource source(api, ComputerName());
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
  EXPECT_TRUE(SnapshotReader::Open(*bytes).ok());
}

TEST(Win32RegistryTest, ConnectToAMissingHostFailsWithBadNetpath) {
  Win32RegistryApi api;
  RegistryKey key = 0;
  EXPECT_EQ(api.ConnectRegistry("\\\\nosuchhost", PredefinedKey::kPerformanceData, &key),
            ERROR_BAD_NETPATH);
  RemoteHkpdSource source(api, "nosuchhost");
  Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "\\\\nosuchhost: RegConnectRegistryW(HKEY_PERFORMANCE_DATA) failed "
            "with 53 (ERROR_BAD_NETPATH: the network path was not found)");
}

TEST(Win32RegistryTest, ClosingThePerformanceKeyWorksRepeatedly) {
  Win32RegistryApi api;
  RegistryKey key = api.Predefined(PredefinedKey::kPerformanceData);
  EXPECT_EQ(api.CloseKey(key), ERROR_SUCCESS);
  EXPECT_EQ(api.CloseKey(key), ERROR_SUCCESS);
  // And it can be used again afterwards, as a new sampling session would.
  HkpdReader reader(api, key, "HKEY_PERFORMANCE_DATA");
  EXPECT_TRUE(reader.ReadSnapshot("Global").ok());
}

TEST(Win32RegistryTest, MakeLocalHkpdSourceGivesAWorkingSource) {
  std::unique_ptr<SnapshotSource> source = MakeLocalHkpdSource();
  Result<std::vector<uint8_t>> bytes = source->TakeSnapshot("Global");
  ASSERT_TRUE(bytes.ok()) << bytes.error();
}

}  // namespace
}  // namespace perfhive
