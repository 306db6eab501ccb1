// Writes the seed corpus for collection_plan_fuzzer: plans as a server sends them (byte 0, then
// the message) and policies files (byte 1, then the text), each from what the docs show.

#include <string>

#include "perfhive/v1/ingest.pb.h"
#include "proto/collection_plan.h"
#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  using std::chrono::milliseconds;
  perfhive::CollectionPlan plan;
  plan.policy = "web";
  plan.queries.push_back({.name = "Global", .objects = {}, .every = milliseconds(10000)});
  plan.queries.push_back({.name = "Costly", .objects = {}, .every = std::nullopt});
  plan.queries.push_back(
      {.name = "", .objects = {"Processor", "Memory"}, .every = milliseconds(30000)});
  plan.interval = milliseconds(10000);
  plan.spool_max_bytes = 512u << 20;
  plan.revision = perfhive::PlanRevision(plan);
  perfhive::v1::CollectionPlan message;
  perfhive::PlanToProto(plan, &message);
  corpus.Write("plan", std::string(1, '\0') + message.SerializeAsString());
  perfhive::PlanToProto(perfhive::CollectionPlan(), &message);
  corpus.Write("no_plan", std::string(1, '\0') + message.SerializeAsString());
  perfhive::CollectionPlan poller;
  poller.policy = "pollers";
  poller.targets = {"\\\\db01", "\\\\10.0.0.7:445=DB02"};
  poller.revision = perfhive::PlanRevision(poller);
  perfhive::PlanToProto(poller, &message);
  corpus.Write("poller_plan", std::string(1, '\0') + message.SerializeAsString());
  corpus.Write("poller_policies", std::string(1, '\1') +
                                      "[[policy]]\nname = \"pollers\"\nhosts = [\"poll01\"]\n"
                                      "targets = ['\\\\db01', '\\\\10.0.0.7:445=DB02']\n");
  corpus.Write("policies", std::string(1, '\1') +
                               "[[policy]]\nname = \"web\"\nhosts = [\"web*\", \"shop01\"]\n"
                               "queries = [\"Global\", \"Costly@5m\", \"Processor,Memory@30s\"]\n"
                               "interval = \"10s\"\nspool_max_bytes = 536870912\n"
                               "[[policy]]\nname = \"rest\"\nhosts = [\"*\"]\n"
                               "interval = \"1m\"\n");
  return 0;
}
