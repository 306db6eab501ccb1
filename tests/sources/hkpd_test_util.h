// Data for the Windows sources' tests: builder-made snapshots, title lists, registry values, and
// the real title databases in ../shared/fixtures/title-databases (lodctr /S dumps of real hosts).

#ifndef PERFHIVE_TESTS_SOURCES_HKPD_TEST_UTIL_H_
#define PERFHIVE_TESTS_SOURCES_HKPD_TEST_UTIL_H_

#include <chrono>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "base/byte_order.h"
#include "perfdata/lodctr_dump.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/title_database.h"
#include "perfdata/winperf.h"
#include "sources/hkpd/hkpd_reader.h"
#include "tests/support/shared_fixtures.h"

namespace perfhive::testing {

inline constexpr char kPerflib[] = "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib";

// A valid snapshot of `bytes_wanted` bytes or a little more: Process with enough instances.
inline std::vector<uint8_t> SnapshotOfAbout(size_t bytes_wanted) {
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

// The REG_MULTI_SZ bytes of a "Counter" list holding `names`, and of a "Help" list.
inline std::vector<uint8_t> NameList(
    std::initializer_list<std::pair<uint32_t, const char*>> names) {
  TitleDatabase database;
  for (const auto& [index, name] : names) database.AddName(index, name);
  return database.EncodeNames();
}
inline std::vector<uint8_t> HelpList(
    std::initializer_list<std::pair<uint32_t, const char*>> helps) {
  TitleDatabase database;
  for (const auto& [index, help] : helps) database.AddHelp(index, help);
  return database.EncodeHelps();
}

inline std::vector<uint8_t> DwordValue(uint32_t value) {
  std::vector<uint8_t> bytes(4);
  StoreU32(bytes.data(), value);
  return bytes;
}

inline HkpdReaderOptions TestReaderOptions() {
  HkpdReaderOptions options;
  options.initial_buffer_bytes = 1024;
  options.max_buffer_bytes = 4 * 1024 * 1024;
  options.busy_retries = 3;
  return options;
}

// A real host's `lodctr /S` dump, parsed. Callers skip without the title-databases fixtures.
inline Result<LodctrDump> RealTitleDump(const std::string& host) {
  return ParseLodctrDump(ReadSharedFixture(TitleDumpFixture(host)));
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SOURCES_HKPD_TEST_UTIL_H_
