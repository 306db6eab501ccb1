// The cache of open /proc/<pid> files on the real /proc: a file held open stays bound to its
// process, the descriptor budget is kept, and files of processes gone are closed.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "sources/procfs/proc_parsers.h"
#include "sources/procfs/process_file_cache.h"
#include "tests/sources/procfs_test_util.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;

class ProcessFileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<ProcFiles> files = ProcFiles::Open("/proc", "/sys");
    ASSERT_TRUE(files.ok()) << files.error();
    files_.emplace(std::move(files).value());
  }

  std::optional<ProcFiles> files_;
};

TEST_F(ProcessFileCacheTest, ReadsTheProcessFiles) {
  ProcessFileCache cache(*files_, 100);
  ReadBuffer buffer;
  ASSERT_TRUE(cache.Read(getpid(), ProcessFileCache::kStat, buffer).ok());
  Result<ProcessStat> stat = ParseProcessStat(buffer.text());
  ASSERT_TRUE(stat.ok()) << stat.error();
  EXPECT_EQ(stat->ppid, getppid());
  ASSERT_TRUE(cache.Read(getpid(), ProcessFileCache::kIo, buffer).ok());
  EXPECT_THAT(std::string(buffer.text()), HasSubstr("wchar: "));
  EXPECT_EQ(cache.open_files(), 2u);
  // Read again from the held descriptors.
  ASSERT_TRUE(cache.Read(getpid(), ProcessFileCache::kStat, buffer).ok());
  EXPECT_TRUE(ParseProcessStat(buffer.text()).ok());
  EXPECT_EQ(cache.open_files(), 2u);
}

TEST_F(ProcessFileCacheTest, AFileHeldOpenFailsOnceItsProcessHasEnded) {
  ProcessFileCache cache(*files_, 100);
  pid_t child = testing::ForkBoundChild();
  ASSERT_GE(child, 0);
  if (child == 0) {
    while (true) pause();
  }
  ReadBuffer buffer;
  ASSERT_TRUE(cache.Read(child, ProcessFileCache::kStat, buffer).ok());
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  Status gone = cache.Read(child, ProcessFileCache::kStat, buffer);
  ASSERT_FALSE(gone.ok());
  EXPECT_THAT(gone.message(), HasSubstr("/proc/" + std::to_string(child) + "/stat"));
}

TEST_F(ProcessFileCacheTest, KeepsWithinItsBudgetAndClosesFilesOfProcessesNotRead) {
  ProcessFileCache cache(*files_, 1);
  ReadBuffer buffer;
  ASSERT_TRUE(cache.Read(getpid(), ProcessFileCache::kStat, buffer).ok());
  ASSERT_TRUE(cache.Read(getpid(), ProcessFileCache::kStatm, buffer).ok());
  EXPECT_EQ(cache.open_files(), 1u);  // statm was read through a temporary descriptor
  Result<ProcessPages> pages = ParseStatm(buffer.text());
  ASSERT_TRUE(pages.ok()) << pages.error();
  EXPECT_GT(pages->resident, 0u);
  cache.Sweep();  // this pid was read since the last sweep: kept
  EXPECT_EQ(cache.open_files(), 1u);
  cache.Sweep();  // and not since: closed
  EXPECT_EQ(cache.open_files(), 0u);
}

TEST_F(ProcessFileCacheTest, CountsDescriptors) {
  ProcessFileCache cache(*files_, 100);
  std::optional<uint32_t> before = cache.CountDescriptors(getpid());
  ASSERT_TRUE(before.has_value());
  int extra = dup(STDERR_FILENO);
  std::optional<uint32_t> during = cache.CountDescriptors(getpid());
  close(extra);
  EXPECT_EQ(during, *before + 1);
  EXPECT_FALSE(cache.CountDescriptors(-5).has_value());
}

}  // namespace
}  // namespace perfhive
