// Writes the seed corpus for enrollment_request_fuzzer: EnrollRequests as agents and pollers send
// them (the token "seed-token" stands for the fuzzer's real one), and ones the server refuses: a
// host the token does not allow, an unknown token, a damaged request.

#include <string>
#include <vector>

#include "perfhive/v1/enroll.pb.h"
#include "pki/certificate_request.h"
#include "tests/fuzz/seed_corpus.h"

namespace {

bool WriteRequest(const perfhive::testing::SeedCorpus& corpus, const std::string& name,
                  const std::string& token, const std::string& host,
                  const std::vector<std::string>& targets, bool damage_request) {
  auto made = perfhive::MakeKeyAndRequest(host);
  if (!made.ok()) return false;
  perfhive::v1::EnrollRequest request;
  request.set_token(token);
  request.set_host_name(host);
  std::string pem = made->request_pem;
  if (damage_request) pem[pem.size() / 2] ^= 0x20;
  request.set_request_pem(pem);
  for (const std::string& target : targets) request.add_targets(target);
  corpus.Write(name, request.SerializeAsString());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  bool written =
      WriteRequest(corpus, "host", "seed-token", "web01", {}, false) &&
      WriteRequest(corpus, "poller", "seed-token", "poll01", {"web02", "web03"}, false) &&
      WriteRequest(corpus, "host_not_allowed", "seed-token", "db01", {}, false) &&
      WriteRequest(corpus, "target_not_allowed", "seed-token", "poll02", {"db02"}, false) &&
      WriteRequest(corpus, "unknown_token", "phe1_0123456789_abcdef", "web04", {}, false) &&
      WriteRequest(corpus, "damaged_request", "seed-token", "web05", {}, true);
  return written ? 0 : 1;
}
