// Writes the seed corpus for pinned_chain_fuzzer: a pin (64 hex digits) and a server's chain as
// PEM, for a genuine chain, one from another CA, a middle man's chain ending in the genuine CA,
// and an expired certificate.

#include <chrono>
#include <string>

#include "pki/certificate_authority.h"
#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  using std::chrono::hours;
  auto ca = perfhive::CertificateAuthority::Create("seed CA", hours(240));
  auto other = perfhive::CertificateAuthority::Create("other CA", hours(240));
  if (!ca.ok() || !other.ok()) return 1;
  auto genuine = ca->IssueServerCertificate({"localhost"}, {"127.0.0.1"}, hours(24));
  auto foreign = other->IssueServerCertificate({"localhost"}, {}, hours(24));
  auto expired = ca->IssueServerCertificate({"localhost"}, {}, -hours(1));
  if (!genuine.ok() || !foreign.ok() || !expired.ok()) return 1;
  corpus.Write("genuine", ca->Sha256() + genuine->certificate_pem);
  corpus.Write("another_ca", ca->Sha256() + foreign->certificate_pem);
  corpus.Write("middle_man", ca->Sha256() + foreign->certificate_pem + ca->CertificatePem());
  corpus.Write("expired", ca->Sha256() + expired->certificate_pem);
  corpus.Write("fingerprint", "sha256:" + ca->Sha256());
  return 0;
}
