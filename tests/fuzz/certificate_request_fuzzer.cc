// Feeds arbitrary bytes to what the server reads from an enrolling agent (EnrollRequest's
// request_pem): IssueClientCertificate must refuse or sign without crashing or leaking, and
// what it signs must describe itself with the host name given. DescribeCertificate, which reads
// client certificates during the handshake, gets the same bytes. Seeds (certificate_request_
// seeds.cc): real requests and certificates.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "pki/certificate_authority.h"
#include "pki/certificate_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const perfhive::CertificateAuthority* ca = [] {
    auto made = perfhive::CertificateAuthority::Create("fuzz CA", std::chrono::hours(24));
    if (!made.ok()) std::abort();
    return new perfhive::CertificateAuthority(std::move(made).value());
  }();
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  (void)perfhive::DescribeCertificate(input);
  perfhive::Result<perfhive::IssuedCertificate> issued =
      ca->IssueClientCertificate(input, "web01", std::chrono::hours(1));
  if (issued.ok()) {
    perfhive::Result<perfhive::CertificateSubject> subject =
        perfhive::DescribeCertificate(issued->certificate_pem);
    if (!subject.ok() || subject->common_name != "web01") std::abort();
  }
  return 0;
}
