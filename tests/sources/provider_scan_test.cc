// ScanDisabledProviders over a fake registry shaped as Windows keeps services: only Performance
// keys whose `Disable Performance Counters` is not 0 are disabled providers, with their library
// and objects; services without a Performance key, with the value 0 or without it are not.

#include "sources/hkpd/provider_scan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "perfdata/text_encoding.h"
#include "tests/sources/fake_registry.h"
#include "tests/sources/hkpd_test_util.h"

namespace perfhive {
namespace {

constexpr char kServices[] = "HKLM\\SYSTEM\\CurrentControlSet\\Services";

std::vector<uint8_t> Text(const std::string& text) {
  std::vector<uint8_t> bytes = Utf8ToUtf16Le(text);
  bytes.push_back(0);
  bytes.push_back(0);
  return bytes;
}

class ProviderScanTest : public ::testing::Test {
 protected:
  void Set(const std::string& key, const std::string& name, std::vector<uint8_t> bytes,
           uint32_t type) {
    registry_.values[{std::string(kServices) + "\\" + key, name}] = {std::move(bytes), type};
  }

  testing::FakeRegistry registry_;
};

TEST_F(ProviderScanTest, OnlyProvidersWithTheValueSetAreDisabled) {
  Set("PerfOS\\Performance", kDisablePerformanceCounters, testing::DwordValue(1), kRegDword);
  Set("PerfOS\\Performance", "Library", Text("%SystemRoot%\\System32\\perfos.dll"), kRegExpandSz);
  Set("PerfOS\\Performance", "Object List", Text("2 4  238 1000"), kRegSz);
  Set("MSSQL$SQL01\\Performance", kDisablePerformanceCounters, testing::DwordValue(4), kRegDword);
  Set("MSSQL$SQL01\\Performance", "Library", Text("perf-MSSQL$SQL01-sqlctr.dll"), kRegSz);
  Set("PerfDisk\\Performance", kDisablePerformanceCounters, testing::DwordValue(0), kRegDword);
  Set("PerfNet\\Performance", "Library", Text("perfnet.dll"), kRegSz);
  Set("Tcpip\\Parameters", "Hostname", Text("web01"), kRegSz);
  // Stored as a string, not a DWORD: not Windows' value, not read as one.
  Set("Odd\\Performance", kDisablePerformanceCounters, Text("1"), kRegSz);

  Result<std::vector<DisabledProvider>> disabled =
      ScanDisabledProviders(registry_, registry_.Predefined(PredefinedKey::kLocalMachine));
  ASSERT_TRUE(disabled.ok()) << disabled.error();
  ASSERT_EQ(disabled->size(), 2u);
  EXPECT_EQ((*disabled)[0], (DisabledProvider{.service = "MSSQL$SQL01",
                                              .disable_value = 4,
                                              .library = "perf-MSSQL$SQL01-sqlctr.dll",
                                              .object_indexes = {}}));
  EXPECT_EQ((*disabled)[1], (DisabledProvider{.service = "PerfOS",
                                              .disable_value = 1,
                                              .library = "%SystemRoot%\\System32\\perfos.dll",
                                              .object_indexes = {2, 4, 238, 1000}}));
  EXPECT_EQ(registry_.open_keys, 0) << "every key it opened is closed";
}

TEST_F(ProviderScanTest, AHostWithoutServicesKeySaysWhichKey) {
  Result<std::vector<DisabledProvider>> disabled =
      ScanDisabledProviders(registry_, registry_.Predefined(PredefinedKey::kLocalMachine));
  ASSERT_FALSE(disabled.ok());
  EXPECT_NE(disabled.error().find("HKLM\\SYSTEM\\CurrentControlSet\\Services"), std::string::npos)
      << disabled.error();
}

TEST_F(ProviderScanTest, NoneDisabledIsAnEmptyList) {
  Set("PerfOS\\Performance", "Library", Text("perfos.dll"), kRegSz);
  Result<std::vector<DisabledProvider>> disabled =
      ScanDisabledProviders(registry_, registry_.Predefined(PredefinedKey::kLocalMachine));
  ASSERT_TRUE(disabled.ok()) << disabled.error();
  EXPECT_TRUE(disabled->empty());
}

}  // namespace
}  // namespace perfhive
