// Feeds arbitrary bytes to both ends of central policies: the agent's reading of a
// perfhive.v1.CollectionPlan a server sent (PlanFromProto) and the server's reading of a
// policies file (PolicyBook::Parse). The first byte chooses which. A plan accepted must pass
// CheckPlan and come back the same through PlanToProto; a policy read must have a revision that
// is its content's. Nothing may crash, hang or leak.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "perfhive/v1/ingest.pb.h"
#include "proto/collection_plan.h"
#include "server/policies/policy_book.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t* rest = data + 1;
  const size_t rest_size = size - 1;
  if (data[0] % 2 == 0) {
    perfhive::v1::CollectionPlan message;
    if (!message.ParseFromArray(rest, static_cast<int>(rest_size))) return 0;
    perfhive::Result<perfhive::CollectionPlan> plan = perfhive::PlanFromProto(message);
    if (!plan.ok()) return 0;
    if (!perfhive::CheckPlan(*plan).ok()) __builtin_trap();
    perfhive::v1::CollectionPlan again;
    perfhive::PlanToProto(*plan, &again);
    perfhive::Result<perfhive::CollectionPlan> reread = perfhive::PlanFromProto(again);
    if (!reread.ok() || !(*reread == *plan)) __builtin_trap();
    return 0;
  }
  std::string_view text(reinterpret_cast<const char*>(rest), rest_size);
  perfhive::Result<perfhive::PolicyBook> book = perfhive::PolicyBook::Parse(text, "fuzz.toml");
  if (!book.ok()) return 0;
  for (const perfhive::PolicyBook::Policy& policy : book->policies()) {
    if (policy.hosts.empty() || policy.plan.revision != perfhive::PlanRevision(policy.plan)) {
      __builtin_trap();
    }
  }
  return 0;
}
