#include "sources/replay/replay_source.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace perfhive {
namespace {

class ReplaySourceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    dir_ = std::filesystem::temp_directory_path() /
           ("perfhive-replay-test-" + std::to_string(random()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary) << content;
  }
  Result<std::unique_ptr<ReplaySource>> Open(std::string host = "REPLAYED") {
    ReplayOptions options;
    options.dir = dir_.string();
    options.identity.name = std::move(host);
    return ReplaySource::Open(Env::Default(), std::move(options));
  }
  static std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

  std::filesystem::path dir_;
};

TEST_F(ReplaySourceTest, HandsOutEveryFileButTitlesInNameOrderThenRunsOut) {
  Write("titles.bin", "T\0I\0T\0");
  Write("002.bin", "second");
  Write("001.bin", "first");
  Write("010.bin", "third");
  Result<std::unique_ptr<ReplaySource>> source = Open();
  ASSERT_TRUE(source.ok()) << source.error();
  EXPECT_EQ((*source)->file_count(), 3u);
  EXPECT_EQ(*(*source)->TakeSnapshot("Global"), Bytes("first"));
  EXPECT_EQ(*(*source)->TakeSnapshot("Costly"), Bytes("second"));  // whatever the query
  EXPECT_EQ((*source)->remaining(), 1u);
  EXPECT_EQ(*(*source)->TakeSnapshot("Global"), Bytes("third"));
  Result<std::vector<uint8_t>> done = (*source)->TakeSnapshot("Global");
  EXPECT_EQ(done.status().code(), StatusCode::kOutOfRange);
  EXPECT_TRUE((*source)->TakeWarnings().empty());
}

TEST_F(ReplaySourceTest, TitlesAreCounter009OnceAndIdentityIsTheGivenName) {
  Write("titles.bin", std::string("1\0\0\0", 4));
  Write("a", "x");
  Result<std::unique_ptr<ReplaySource>> source = Open("WEB01");
  ASSERT_TRUE(source.ok());
  Result<std::optional<std::vector<TitleBytes>>> first = (*source)->ReadTitlesIfChanged();
  ASSERT_TRUE(first.ok() && first->has_value());
  ASSERT_EQ((*first)->size(), 1u);
  EXPECT_EQ((*first)->front().language, "009");
  EXPECT_EQ((*first)->front().counters, Bytes(std::string("1\0\0\0", 4)));
  EXPECT_TRUE((*first)->front().helps.empty());
  Result<std::optional<std::vector<TitleBytes>>> second = (*source)->ReadTitlesIfChanged();
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->has_value());
  EXPECT_EQ(*(*source)->ReadTitles(), **first);
  EXPECT_EQ((*source)->Identity()->name, "WEB01");
}

TEST_F(ReplaySourceTest, ADisplayLanguageFileBecomesTheCurrentLanguageDatabase) {
  Write("titles.bin", std::string("1\0\0\0", 4));
  Write("titles.007.bin", std::string("2\0\0\0", 4));
  Write("001.bin", "x");
  Result<std::unique_ptr<ReplaySource>> source = Open();
  ASSERT_TRUE(source.ok()) << source.error();
  EXPECT_EQ((*source)->file_count(), 1u);  // the title files are no snapshots
  Result<std::vector<TitleBytes>> titles = (*source)->ReadTitles();
  ASSERT_TRUE(titles.ok());
  ASSERT_EQ(titles->size(), 2u);
  EXPECT_EQ((*titles)[0].language, "009");
  EXPECT_EQ((*titles)[1].language, "CurrentLanguage");
  EXPECT_EQ((*titles)[1].counters, Bytes(std::string("2\0\0\0", 4)));

  Write("titles.040C.bin", "f");
  Result<std::unique_ptr<ReplaySource>> two = Open();
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().find("titles.007.bin and titles.040C.bin"), std::string::npos)
      << two.error();
}

TEST_F(ReplaySourceTest, NeedsTitlesAndAHostName) {
  Write("001.bin", "x");
  Result<std::unique_ptr<ReplaySource>> no_titles = Open();
  ASSERT_FALSE(no_titles.ok());
  EXPECT_NE(no_titles.error().find("titles.bin"), std::string::npos) << no_titles.error();
  Write("titles.bin", "t");
  EXPECT_NE(Open("").error().find("--host-name"), std::string::npos);
}

}  // namespace
}  // namespace perfhive
