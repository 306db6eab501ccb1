// Writes the seed corpus for http_api_fuzzer into the directory given as argument: one request
// of each API call as the console makes them, in the fuzzer's line format.

#include <string>

#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  const char* seeds[] = {
      "/api/v1/hosts\npattern=web*",
      "/api/v1/objects\nhost=WEB01\ndetail=novice\nat=-1h",
      "/api/v1/counters\nhost=WEB01\nobject=Process\ndetail=expert",
      "/api/v1/instances\nhost=WEB01\nobject=230\nat=2026-11-26T15:00:00Z",
      "/api/v1/read\npath=\\\\*\\Processor(*)\\% Processor Time\nfrom=-5m\nto=now\nstep=10s\n"
      "statistics=1\nscale=-2\ncap100=1\nmax_points=1000",
      "/api/v1/read\npath=\\\\WEB01\\Process(*)\\ID Process\npath=\\Memory\\*\nlatest\n"
      "from=1795705200000",
      "/api/v1/read.csv\npath=\\\\WEB01\\Processor(0\\% Processor Time",
      "/api/v1/read\npath=\\Thread(a/*#1)\\ID Thread\nfrom=yesterday\n"
      "H:Cookie: a=1; perfhive_session=61626364",
  };
  int n = 0;
  for (const char* seed : seeds) corpus.Write("seed" + std::to_string(n++), seed);
  return 0;
}
