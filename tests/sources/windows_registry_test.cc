// The Windows sources against the real registry API (advapi32). In CI these run under Wine,
// whose HKEY_PERFORMANCE_DATA is real but small: the tests hold for any Windows host and assert
// nothing about Wine's particular data.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <windows.h>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "perfdata/snapshot_reader.h"
#include "perfdata/text_encoding.h"
#include "perfdata/title_database.h"
#include "perfdata/title_list.h"
#include "port/env.h"
#include "sources/hkpd/hkpd_reader.h"
#include "sources/hkpd/hkpd_source.h"
#include "sources/hkpd/windows/win32_registry_api.h"

namespace perfhive {
namespace {

std::string ComputerName() {
  wchar_t name[MAX_COMPUTERNAME_LENGTH + 1];
  DWORD length = MAX_COMPUTERNAME_LENGTH + 1;
  EXPECT_TRUE(GetComputerNameW(name, &length));
  return Utf16LeToUtf8(std::span(reinterpret_cast<const uint8_t*>(name), length * 2));
}

// The real API, with each query's buffer size and answer recorded.
class RecordingRegistry : public Win32RegistryApi {
 public:
  long QueryValue(RegistryKey key, const std::string& name, uint8_t* buffer, uint32_t* size,
                  uint32_t* type) override {
    sizes.push_back(*size);
    long rc = Win32RegistryApi::QueryValue(key, name, buffer, size, type);
    answers.push_back(rc);
    return rc;
  }
  std::vector<uint32_t> sizes;
  std::vector<long> answers;
};

TEST(WindowsRegistryTest, QueriesReturnValidBlocksThroughTheGrowLoop) {
  RecordingRegistry api;
  HkpdReaderOptions options;
  options.initial_buffer_bytes = 16;  // smaller than any PERF_DATA_BLOCK: the loop must grow
  HkpdReader reader(api, Env::Default(), api.Predefined(PredefinedKey::kPerformanceData),
                    std::nullopt, "", options);
  for (const char* query : {"Global", "Costly", "230 238", "2"}) {
    Result<std::vector<uint8_t>> bytes = reader.ReadSnapshot(query);
    ASSERT_TRUE(bytes.ok()) << query << ": " << bytes.error();
    Result<SnapshotReader> snapshot = SnapshotReader::Open(*bytes);
    ASSERT_TRUE(snapshot.ok()) << snapshot.error();
    EXPECT_EQ(snapshot->version(), 1u);
    EXPECT_GT(snapshot->perf_freq(), 0);
    EXPECT_EQ(snapshot->system_name(), ComputerName());
  }
  // The first call got ERROR_MORE_DATA, the buffer doubled until a call succeeded.
  ASSERT_GE(api.sizes.size(), 2u);
  EXPECT_EQ(api.sizes[0], 16u);
  EXPECT_EQ(api.answers[0], ERROR_MORE_DATA);
  EXPECT_EQ(api.sizes[1], 32u);
  EXPECT_THAT(api.answers, ::testing::Contains(ERROR_SUCCESS));
}

TEST(WindowsRegistryTest, TitleQueriesReturnTheEnglishTitleDatabase) {
  Win32RegistryApi api;
  LocalHkpdSource source(api, Env::Default());
  Result<std::vector<TitleBytes>> databases = source.ReadTitles();
  ASSERT_TRUE(databases.ok()) << databases.error();
  // Wine has no display-language lists (HKEY_PERFORMANCE_NLSTEXT, Perflib\CurrentLanguage):
  // English alone, and no error.
  ASSERT_EQ(databases->size(), 1u);
  const TitleBytes* titles = &databases->front();
  EXPECT_EQ(titles->language, "009");
  // Index 1 of "Counter 009" holds the base index, a number.
  TitleDatabase database;
  ASSERT_TRUE(ParseTitleList(titles->counters, false, database).ok());
  ASSERT_TRUE(ParseTitleList(titles->helps, true, database).ok());
  ASSERT_TRUE(database.Name(1).has_value());
  EXPECT_FALSE(database.Name(1)->empty());
  EXPECT_EQ(database.Name(1)->find_first_not_of("0123456789"), std::string_view::npos);
  // Unchanged titles are handed on once.
  Result<std::optional<std::vector<TitleBytes>>> first = source.ReadTitlesIfChanged();
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_TRUE(first->has_value());
  Result<std::optional<std::vector<TitleBytes>>> again = source.ReadTitlesIfChanged();
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_FALSE(again->has_value());
}

TEST(WindowsRegistryTest, ConnectingToTheLocalComputerByNameWorks) {
  Win32RegistryApi api;
  for (const std::string& machine : {ComputerName(), "\\\\" + ComputerName()}) {
    RemoteHkpdSource source(api, Env::Default(), machine);
    Result<std::vector<uint8_t>> bytes = source.TakeSnapshot("Global");
    ASSERT_TRUE(bytes.ok()) << bytes.error();
    EXPECT_TRUE(SnapshotReader::Open(*bytes).ok());
    Result<std::vector<TitleBytes>> titles = source.ReadTitles();
    ASSERT_TRUE(titles.ok()) << titles.error();
  }
}

TEST(WindowsRegistryTest, ConnectingToAMissingHostFailsWithBadNetpath) {
  Win32RegistryApi api;
  RegistryKey key = 0;
  EXPECT_EQ(api.ConnectRegistry("\\\\nosuchhost", PredefinedKey::kPerformanceData, &key),
            ERROR_BAD_NETPATH);
  std::unique_ptr<SnapshotSource> source = MakeRemoteHkpdSource("nosuchhost");
  Result<std::vector<uint8_t>> bytes = source->TakeSnapshot("Global");
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error(),
            "\\\\nosuchhost: RegConnectRegistryW(HKEY_PERFORMANCE_DATA) failed "
            "with 53 (ERROR_BAD_NETPATH: the network path was not found)");
}

TEST(WindowsRegistryTest, ClosingThePerformanceKeyWorksRepeatedly) {
  Win32RegistryApi api;
  RegistryKey key = api.Predefined(PredefinedKey::kPerformanceData);
  EXPECT_EQ(api.CloseKey(key), ERROR_SUCCESS);
  EXPECT_EQ(api.CloseKey(key), ERROR_SUCCESS);
  // A source closes the key when it goes; the next one opens it again by using it.
  for (int session = 0; session < 2; ++session) {
    std::unique_ptr<SnapshotSource> source = MakeLocalHkpdSource();
    Result<std::vector<uint8_t>> bytes = source->TakeSnapshot("Global");
    ASSERT_TRUE(bytes.ok()) << bytes.error();
  }
}

// A provider disabled in the real registry (a service key this test makes and removes) is found
// by the local source's scan through advapi32, with its library and objects; the key listing
// that finds it is RegEnumKeyExW.
TEST(WindowsRegistryTest, TheScanFindsAProviderDisabledInTheRegistry) {
  const std::wstring service = L"PerfhiveScanTest";
  const std::wstring path = L"SYSTEM\\CurrentControlSet\\Services\\" + service + L"\\Performance";
  HKEY key = nullptr;
  ASSERT_EQ(RegCreateKeyExW(HKEY_LOCAL_MACHINE, path.c_str(), 0, nullptr, 0, KEY_ALL_ACCESS,
                            nullptr, &key, nullptr),
            ERROR_SUCCESS);
  const DWORD disabled = 1;
  const std::wstring library = L"perfhive-scan-test.dll";
  const std::wstring objects = L"238 510";
  RegSetValueExW(key, L"Disable Performance Counters", 0, REG_DWORD,
                 reinterpret_cast<const BYTE*>(&disabled), sizeof disabled);
  RegSetValueExW(key, L"Library", 0, REG_SZ, reinterpret_cast<const BYTE*>(library.c_str()),
                 static_cast<DWORD>((library.size() + 1) * sizeof(wchar_t)));
  RegSetValueExW(key, L"Object List", 0, REG_SZ, reinterpret_cast<const BYTE*>(objects.c_str()),
                 static_cast<DWORD>((objects.size() + 1) * sizeof(wchar_t)));
  RegCloseKey(key);

  std::unique_ptr<SnapshotSource> source = MakeLocalHkpdSource();
  Result<std::vector<DisabledProvider>> found = source->DisabledProviders();
  RegDeleteTreeW(HKEY_LOCAL_MACHINE, (L"SYSTEM\\CurrentControlSet\\Services\\" + service).c_str());
  ASSERT_TRUE(found.ok()) << found.error();
  const auto ours = std::find_if(found->begin(), found->end(), [](const DisabledProvider& p) {
    return p.service == "PerfhiveScanTest";
  });
  ASSERT_NE(ours, found->end()) << found->size() << " disabled providers, not ours";
  EXPECT_EQ(*ours, (DisabledProvider{.service = "PerfhiveScanTest",
                                     .disable_value = 1,
                                     .library = "perfhive-scan-test.dll",
                                     .object_indexes = {238, 510}}));
}

}  // namespace
}  // namespace perfhive
