// Writes the seed corpus for spool_record_fuzzer into the directory given as argument: spool
// records of agents and agentless pollers, with and without titles, without their SHA-256
// trailer (the fuzzer seals what it is given), and a title file.

#include "agent/spool_format.h"
#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  perfhive::SnapshotRecord record{
      .owner = {.host = {.name = "web01", .os = "Windows", .os_version = "10.0"},
                .agentless = false},
      .instance_id = "0123456789abcdef0123456789abcdef",
      .sequence = 7,
      .query = "Global",
      .titles = {perfhive::TitleRef{.language = "009", .sha256 = {}}},
      .raw = {'P', 'E', 'R', 'F', 1, 0, 0, 0}};
  std::vector<uint8_t> bytes = perfhive::EncodeSpoolRecord(record);
  bytes.resize(bytes.size() - 32);  // the fuzzer appends the trailer
  corpus.Write("agent", bytes);
  record.owner.agentless = true;
  record.owner.host.name = "DB01";
  record.titles.clear();
  record.query = "230 238";
  bytes = perfhive::EncodeSpoolRecord(record);
  bytes.resize(bytes.size() - 32);
  corpus.Write("agentless", bytes);
  corpus.Write("titles", perfhive::EncodeSpoolTitles(perfhive::TitleBytes{
                             .language = "009", .counters = {'1', 0, 0, 0}, .helps = {}}));
  return 0;
}
