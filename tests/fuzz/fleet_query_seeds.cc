// Writes the seed corpus for fleet_query_fuzzer into the directory given as argument: the fleet
// questions the docs show, one parameter a line (select, aggregate, group_by, rank_by, top,
// bottom, step, compare, held).

#include <string>

#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  const char* seeds[] = {
      "role=web\navg,p95\nrole\n\n\n\n1",
      "site=ams*,role!=sql\nsum,count,min,max\nhost\nmax\n1\n\n2",
      "\n\n\np95\n2\n\n",
      "host=WEB*\np50,p90,p99\nprocess\nlast\n\n1\n1",
      "env=\ncount\ninstance\n\n\n\n1",
      "role=web\navg\nlabel:host\nmean\n3\n\n1",
      "\navg\nhost\n\n\n\n1\n2s",
      "role=sql\n\n\nmax\n1\n\n\n1s",
      "\n\n\n\n\n\n\n\n> 40 for 2s",
      "role=web\navg,p95\nrole\n\n\n\n1\n\n>= 20",
  };
  int n = 0;
  for (const char* seed : seeds) corpus.Write("seed" + std::to_string(n++), seed);
  return 0;
}
