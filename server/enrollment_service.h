// EnrollmentService: the server side of perfhive.v1.Enrollment. An agent holding an enrollment
// token sends its host name and a certificate signing request for a key it made; the token is
// spent (EnrollmentRegistry::Redeem) and the server's CA signs a client certificate naming the
// host, which the registry records so that it can be revoked. docs/enrollment.md.

#ifndef PERFHIVE_SERVER_ENROLLMENT_SERVICE_H_
#define PERFHIVE_SERVER_ENROLLMENT_SERVICE_H_

#include <chrono>

#include "perfhive/v1/enroll.grpc.pb.h"
#include "pki/certificate_authority.h"
#include "server/enrollment_registry.h"
#include "server/server_log.h"

namespace perfhive {

class EnrollmentService final : public perfhive::v1::Enrollment::CallbackService {
 public:
  // How long an enrolled agent's certificate is valid.
  static constexpr std::chrono::hours kCertificateValidity{24 * 90};

  EnrollmentService(const CertificateAuthority& ca, EnrollmentRegistry& registry, ServerLog& log)
      : ca_(ca), registry_(registry), log_(log) {}

  grpc::ServerUnaryReactor* Enroll(grpc::CallbackServerContext* context,
                                   const perfhive::v1::EnrollRequest* request,
                                   perfhive::v1::EnrollReply* reply) override;

 private:
  Status EnrollHost(const perfhive::v1::EnrollRequest& request, perfhive::v1::EnrollReply& reply);

  const CertificateAuthority& ca_;
  EnrollmentRegistry& registry_;
  ServerLog& log_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ENROLLMENT_SERVICE_H_
