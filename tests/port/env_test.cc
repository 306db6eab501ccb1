#include "port/env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>

namespace perfhive {
namespace {

class EnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    dir_ =
        (std::filesystem::temp_directory_path() / ("perfhive-env-test-" + std::to_string(random())))
            .string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  Env& env_ = Env::Default();
  std::string dir_;
};

TEST_F(EnvTest, FilesAreWrittenAtomicallyReadListedSizedAndRemoved) {
  ASSERT_TRUE(env_.CreateDirectories(dir_ + "/a/b").ok());
  ASSERT_TRUE(env_.CreateDirectories(dir_ + "/a/b").ok());  // existing is fine
  std::string path = dir_ + "/a/b/file";
  std::vector<uint8_t> first = {1, 2, 3};
  std::vector<uint8_t> second(100000, 7);
  ASSERT_TRUE(env_.WriteFileAtomically(path, first).ok());
  ASSERT_TRUE(env_.WriteFileAtomically(path, second).ok());  // replaces
  EXPECT_EQ(*env_.ReadFile(path), second);
  EXPECT_EQ(*env_.FileSize(path), 100000u);
  Result<std::vector<std::string>> names = env_.ListDirectory(dir_ + "/a/b");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::vector<std::string>{"file"});  // no temporary left behind
  ASSERT_TRUE(env_.RemoveFile(path).ok());
  EXPECT_EQ(env_.ReadFile(path).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(env_.RemoveFile(path).code(), StatusCode::kNotFound);
  EXPECT_FALSE(env_.ListDirectory(dir_ + "/missing").ok());
}

TEST_F(EnvTest, ClocksMoveForward) {
  auto steady = env_.SteadyNow();
  env_.SleepFor(std::chrono::milliseconds(1));
  EXPECT_GT(env_.SteadyNow(), steady);
  EXPECT_GT(env_.SystemNow().time_since_epoch().count(), 0);
}

}  // namespace
}  // namespace perfhive
