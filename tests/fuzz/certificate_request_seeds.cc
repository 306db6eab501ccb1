// Writes the seed corpus for certificate_request_fuzzer: certificate requests as agents make
// them, and a certificate.

#include <chrono>

#include "pki/certificate_authority.h"
#include "pki/certificate_request.h"
#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  for (const char* host : {"web01", "DB-02.corp.example"}) {
    auto made = perfhive::MakeKeyAndRequest(host);
    if (!made.ok()) return 1;
    corpus.Write(std::string("request_") + host, made->request_pem);
  }
  auto ca = perfhive::CertificateAuthority::Create("seed CA", std::chrono::hours(24));
  if (!ca.ok()) return 1;
  corpus.Write("ca_certificate", ca->CertificatePem());
  return 0;
}
