// What ReplayWriter writes is what the agent's replay source hands out: the samples in order,
// the first title database, and later ones beside the folder.

#include "tests/bench/realistic_fleet/replay_writer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "port/env.h"
#include "sources/replay/replay_source.h"
#include "tests/support/temporary_folder.h"

namespace perfhive::fleet {
namespace {

std::vector<uint8_t> Bytes(const std::string& text) { return {text.begin(), text.end()}; }

TEST(ReplayWriterTest, TheReplaySourceHandsOutWhatWasWritten) {
  testing::TemporaryFolder scratch("replay-writer");
  const std::vector<uint8_t> titles = Bytes("first titles"), later = Bytes("later titles");
  Result<ReplayWriter> writer = ReplayWriter::Create(scratch.path(), "HOST-000001", titles, 12);
  ASSERT_TRUE(writer.ok()) << writer.error();
  std::vector<std::vector<uint8_t>> samples;
  for (int k = 0; k < 12; ++k) {
    samples.push_back(Bytes("sample " + std::to_string(k)));
    ASSERT_TRUE(writer->Write(samples.back(), k == 7, k == 7 ? later : titles).ok());
  }

  ReplayOptions options;
  options.dir = writer->folder().string();
  options.identity.name = "HOST-000001";
  Result<std::unique_ptr<ReplaySource>> source = ReplaySource::Open(Env::Default(), options);
  ASSERT_TRUE(source.ok()) << source.error();
  EXPECT_EQ((*source)->file_count(), 12u);
  for (const std::vector<uint8_t>& sample : samples) {
    Result<std::vector<uint8_t>> taken = (*source)->TakeSnapshot("Global");
    ASSERT_TRUE(taken.ok()) << taken.error();
    EXPECT_EQ(*taken, sample);
  }
  Result<std::vector<TitleBytes>> read = (*source)->ReadTitles();
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ(read->front().counters, titles);
  // The database in force from sample 7 on, where the replay source does not look.
  Result<std::vector<uint8_t>> version =
      Env::Default().ReadFile((scratch.path() / "HOST-000001.titles" / "00007.bin").string());
  ASSERT_TRUE(version.ok()) << version.error();
  EXPECT_EQ(*version, later);
}

TEST(ReplayWriterTest, NamesKeepTheirOrderPastOneHundredThousand) {
  testing::TemporaryFolder scratch("replay-writer");
  Result<ReplayWriter> writer = ReplayWriter::Create(scratch.path(), "H", Bytes("t"), 150'000);
  ASSERT_TRUE(writer.ok()) << writer.error();
  ASSERT_TRUE(writer->Write(Bytes("s"), false, Bytes("t")).ok());
  EXPECT_TRUE(std::filesystem::exists(scratch.path() / "H" / "000000.perf"));
}

}  // namespace
}  // namespace perfhive::fleet
