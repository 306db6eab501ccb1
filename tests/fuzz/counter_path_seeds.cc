// Writes the seed corpus for counter_path_fuzzer into the directory given as argument.

#include <string>

#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  const char* seeds[] = {
      "\\\\WEB01\\Processor(_Total)\\% Processor Time",
      "\\Thread(explorer/3#2)\\Context Switches/sec",
      "\\Process(chrome (1))\\ID Process",
      "\\Process(a`/b`#12)\\ID Process",
      "\\Thread(a`/b/c/d#1)\\ID Thread",
      "\\\\*\\*(*/*)\\*",
      "\\Process(svc*)\\ID*",
      "\\LogicalDisk(C:)\\Avg. Disk sec/Read",
      "\\Memory\\Available Bytes",
      "\\\\h`\\o`*st\\Process()\\x`",
      "\\Process(caf\xC3\xA9#4294967296)\\x",
      "\\LogicalDisk(*/*#*)\\*",
      "\\Process(XORG#*)\\ID Process",
      "\\Process(a`#*)\\x",
  };
  int n = 0;
  for (const char* seed : seeds) corpus.Write("seed" + std::to_string(n++), seed);
  return 0;
}
