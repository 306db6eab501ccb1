// EnrollmentService: the server side of perfhive.v1.Enrollment. An agent holding an enrollment
// token sends its host name and a certificate signing request for a key it made; the token is
// spent (EnrollmentRegistry::Redeem) and the server's CA signs a client certificate naming the
// host, which the registry records so that it can be revoked. An enrolled host renews its
// certificate on its ingest stream (Renew) before it expires. docs/enrollment.md.

#ifndef PERFHIVE_SERVER_ENROLLMENT_ENROLLMENT_SERVICE_H_
#define PERFHIVE_SERVER_ENROLLMENT_ENROLLMENT_SERVICE_H_

#include <chrono>
#include <string_view>

#include "perfhive/v1/enroll.grpc.pb.h"
#include "perfhive/v1/ingest.pb.h"
#include "pki/certificate_authority.h"
#include "server/enrollment/enrollment_registry.h"
#include "server/log/server_log.h"

namespace perfhive {

class EnrollmentService final : public perfhive::v1::Enrollment::CallbackService {
 public:
  // How long an enrolled agent's certificate is valid unless told (--certificate-lifetime).
  static constexpr std::chrono::seconds kCertificateValidity{3600 * 24 * 90};

  EnrollmentService(const CertificateAuthority& ca, EnrollmentRegistry& registry, ServerLog& log,
                    std::chrono::seconds validity = kCertificateValidity)
      : ca_(ca), registry_(registry), log_(log), validity_(validity) {}

  grpc::ServerUnaryReactor* Enroll(grpc::CallbackServerContext* context,
                                   const perfhive::v1::EnrollRequest* request,
                                   perfhive::v1::EnrollReply* reply) override;

  // When the certificate with `serial` should be renewed (once two thirds of its life have
  // passed, so that a host offline for a while still renews in time) and when it expires.
  // NOT_FOUND when unknown.
  struct Renewal {
    std::chrono::system_clock::time_point due, expires;
  };
  Result<Renewal> RenewalDue(const std::string& serial);
  // A new certificate for the host (or reader) of the unrevoked, unexpired certificate `serial`,
  // for the key of `request_pem`, recorded beside the old one (which stays valid until it
  // expires).
  Result<perfhive::v1::RenewedCertificate> Renew(const std::string& serial,
                                                 const std::string& request_pem);

  // Enroll's answer: checks the request, spends one use of the token and issues the certificate.
  // A request that is unreadable or not signed by its own key is refused before the token is
  // touched, spending nothing.
  Status EnrollHost(const perfhive::v1::EnrollRequest& request, perfhive::v1::EnrollReply& reply);

 private:
  struct IssuedCredential {
    std::string certificate_pem;  // the certificate, then the CA's
    CredentialInfo credential;    // as recorded
  };

  // Has the CA sign a client certificate for `credential.host` and the key of `request_pem`,
  // and records it as `credential` with the certificate's serial and expiry: enrollment and
  // renewal alike (`renews`: the serial renewed, which must still be unrevoked when it is
  // recorded; EnrollmentRegistry::RecordCredential).
  Result<IssuedCredential> IssueAndRecord(const std::string& request_pem, CredentialInfo credential,
                                          std::string_view renews = {});

  const CertificateAuthority& ca_;
  EnrollmentRegistry& registry_;
  ServerLog& log_;
  const std::chrono::seconds validity_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ENROLLMENT_ENROLLMENT_SERVICE_H_
