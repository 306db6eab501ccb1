// Feeds arbitrary bytes, as the EnrollRequest an enrolling agent sends and as the request of a
// certificate renewal, to the server's enrollment service over a real registry (SQLite in a
// temporary folder) and a real CA. The token text "seed-token" stands for a real token of that
// registry (host patterns web* and poll*, unlimited uses), so that inputs get past the token to
// the host names, targets and requests. Nothing may crash or leak, and what is signed must hold:
// a certificate is issued only for a request the checks accept, names exactly the host asked
// for, only for hosts (and targets) the token allows; a renewal keeps its certificate's host.
// Seeds (enrollment_request_seeds.cc): real requests of hosts and pollers, and refused ones.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "perfdata/case_folding.h"
#include "perfhive/v1/enroll.pb.h"
#include "pki/certificate_authority.h"
#include "pki/certificate_request.h"
#include "server/enrollment/enrollment_registry.h"
#include "server/enrollment/enrollment_service.h"
#include "server/log/server_log.h"

namespace {

constexpr std::string_view kSeedToken = "seed-token";
constexpr std::string_view kRenewedHost = "web-renewed";

// Whether the token's patterns (web*, poll*) allow `host`.
bool Allowed(const std::string& host) {
  std::string folded = perfhive::FoldCase(host);
  return folded.starts_with("web") || folded.starts_with("poll");
}

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "enrollment_request_fuzzer: %s\n", what);
  std::abort();
}

// The service, its registry's token and a certificate to renew, made once.
struct Fixture {
  Fixture() {
    char folder[] = "/tmp/enrollment_request_fuzzer.XXXXXX";
    if (mkdtemp(folder) == nullptr) Fail("no temporary folder");
    data_dir = folder;
    auto opened = perfhive::EnrollmentRegistry::Open(data_dir);
    auto made = perfhive::CertificateAuthority::Create("fuzz CA", std::chrono::hours(24));
    if (!opened.ok() || !made.ok()) Fail("no registry or CA");
    registry = std::move(opened).value();
    ca = std::make_unique<perfhive::CertificateAuthority>(std::move(made).value());
    null_output = std::fopen("/dev/null", "w");
    log = std::make_unique<perfhive::ServerLog>(std::chrono::seconds(10), null_output);
    service =
        std::make_unique<perfhive::EnrollmentService>(*ca, *registry, *log, std::chrono::hours(1));
    auto created = registry->CreateToken({.host_patterns = {"web*", "poll*"}},
                                         std::chrono::system_clock::now());
    if (!created.ok()) Fail("no token");
    token = created->first;
    auto key = perfhive::MakeKeyAndRequest(kRenewedHost);
    if (!key.ok()) Fail("no key");
    perfhive::v1::EnrollRequest request;
    request.set_token(token);
    request.set_host_name(std::string(kRenewedHost));
    request.set_request_pem(key->request_pem);
    perfhive::v1::EnrollReply reply;
    if (!service->EnrollHost(request, reply).ok()) Fail("the seed host cannot enroll");
    auto subject = perfhive::DescribeCertificate(reply.certificate_pem());
    if (!subject.ok()) Fail("the seed certificate is unreadable");
    renewable_serial = subject->serial;
  }
  ~Fixture() {
    service.reset();
    registry.reset();
    std::filesystem::remove_all(data_dir);
  }

  std::string data_dir;
  std::unique_ptr<perfhive::EnrollmentRegistry> registry;
  std::unique_ptr<perfhive::CertificateAuthority> ca;
  std::FILE* null_output = nullptr;
  std::unique_ptr<perfhive::ServerLog> log;
  std::unique_ptr<perfhive::EnrollmentService> service;
  std::string token;
  std::string renewable_serial;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A static object, not a pointer: its destructor removes the temporary folder at exit.
  static Fixture fixture;
  perfhive::v1::EnrollRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  if (request.token() == kSeedToken) request.set_token(fixture.token);

  perfhive::v1::EnrollReply reply;
  if (fixture.service->EnrollHost(request, reply).ok()) {
    auto subject = perfhive::DescribeCertificate(reply.certificate_pem());
    if (!subject.ok()) Fail("issued an unreadable certificate");
    if (subject->common_name != request.host_name()) Fail("issued for another host");
    if (!Allowed(request.host_name())) Fail("issued for a host the token does not allow");
    for (const std::string& target : request.targets()) {
      if (!Allowed(target)) Fail("issued for a target the token does not allow");
    }
    if (!perfhive::VerifyCertificateRequest(request.request_pem()).ok()) {
      Fail("issued for a request the checks refuse");
    }
  }

  auto renewed = fixture.service->Renew(fixture.renewable_serial, request.request_pem());
  if (renewed.ok()) {
    auto subject = perfhive::DescribeCertificate(renewed->certificate_pem());
    if (!subject.ok()) Fail("renewed as an unreadable certificate");
    if (subject->common_name != kRenewedHost) Fail("renewed for another host");
  }
  return 0;
}
