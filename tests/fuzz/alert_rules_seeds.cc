// Writes the seed corpus for alert_rules_fuzzer: the starter rules file the package ships, and
// rules of every form docs/alerts.md shows.

#include <fstream>
#include <iterator>
#include <string>

#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  std::ifstream shipped(PERFHIVE_SHIPPED_RULES);
  corpus.Write("shipped", std::string((std::istreambuf_iterator<char>(shipped)),
                                      std::istreambuf_iterator<char>()));
  corpus.Write("one_rule",
               "[[rule]]\nname = \"Busy\"\npath = '\\Processor(_Total)\\% Processor Time'\n"
               "condition = \"> 90 for 5m\"\n");
  corpus.Write("every_key",
               "interval = \"30s\"\n[[rule]]\nname = \"WebP95\"\n"
               "path = '\\LogicalDisk(*)\\Avg. Disk sec/Read'\nhosts = \"role=web,site=ams*\"\n"
               "aggregate = \"p95\"\nby = \"site\"\nstep = \"1m\"\ncondition = \">= 0.02\"\n"
               "for = \"10m\"\nseverity = \"critical\"\nlabels = { team = \"windows\" }\n"
               "summary = \"{host} {instance} {path} {value} {threshold}\"\n"
               "description = '''\nlonger\ntext'''\n");
  return 0;
}
