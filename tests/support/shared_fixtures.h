// The reference fixtures in ../shared/fixtures (real captures, title databases, agent output),
// read in place. ../shared is not part of every clone, so a test that needs a fixture skips with
// PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE, naming the path it looked for. Header-only: the Windows
// cross build, which does not build tests/support, includes it too.

#ifndef PERFHIVE_TESTS_SUPPORT_SHARED_FIXTURES_H_
#define PERFHIVE_TESTS_SUPPORT_SHARED_FIXTURES_H_

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#ifndef PERFHIVE_SHARED_DIR
#error "PERFHIVE_SHARED_DIR names the shared folder; tests/CMakeLists.txt sets it"
#endif

namespace perfhive::testing {

// The fixtures folder.
inline std::filesystem::path SharedFixturesRoot() {
  return std::filesystem::path(PERFHIVE_SHARED_DIR) / "fixtures";
}

// The fixture file or folder `relative` names under the fixtures folder.
inline std::filesystem::path SharedFixture(const std::filesystem::path& relative) {
  return SharedFixturesRoot() / relative;
}

inline bool SharedFixturePresent(const std::filesystem::path& relative) {
  return std::filesystem::exists(SharedFixture(relative));
}

// The bytes of a fixture file; empty when it does not open (callers skip before reading).
inline std::vector<uint8_t> ReadSharedFixture(const std::filesystem::path& relative) {
  std::ifstream in(SharedFixture(relative), std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// A real host's `lodctr /S` dump, `host` naming title-databases/<host>.PerfStringBackup.INI.
inline std::filesystem::path TitleDumpFixture(const std::string& host) {
  return std::filesystem::path("title-databases") / (host + ".PerfStringBackup.INI");
}

// Why a test skips when `relative` is absent.
inline std::string MissingSharedFixture(const std::filesystem::path& relative) {
  return "no shared fixture at " + SharedFixture(relative).string() +
         " (../shared is not part of every clone)";
}

}  // namespace perfhive::testing

// Skips the current test when the fixture file or folder `relative` is absent. A macro because
// GTEST_SKIP returns from the test body.
#define PERFHIVE_SKIP_WITHOUT_SHARED_FIXTURE(relative)       \
  if (::perfhive::testing::SharedFixturePresent(relative)) { \
  } else                                                     \
    GTEST_SKIP() << ::perfhive::testing::MissingSharedFixture(relative)

#endif  // PERFHIVE_TESTS_SUPPORT_SHARED_FIXTURES_H_
