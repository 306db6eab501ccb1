#include "server/enrollment_service.h"

#include "perfdata/host_name.h"
#include "pki/certificate_request.h"
#include "server/call_auth.h"

namespace perfhive {

Status EnrollmentService::EnrollHost(const perfhive::v1::EnrollRequest& request,
                                     perfhive::v1::EnrollReply& reply) {
  if (Status valid = CheckHostName(request.host_name()); !valid.ok()) {
    return valid.Prefixed("host name: ");
  }
  auto now = std::chrono::system_clock::now();
  // The request is checked before the token is spent: a damaged one costs no use.
  if (request.request_pem().size() > (64 << 10) ||
      request.request_pem().find("-----BEGIN CERTIFICATE REQUEST-----") == std::string::npos) {
    return Status::InvalidArgument("no certificate signing request (PEM) in the enrollment");
  }
  Result<EnrollmentTokenInfo> token = registry_.Redeem(request.token(), request.host_name(), now);
  if (!token.ok()) return token.status();
  Result<IssuedCertificate> issued =
      ca_.IssueClientCertificate(request.request_pem(), request.host_name(), kCertificateValidity);
  if (!issued.ok()) return issued.status();
  Result<CertificateSubject> subject = DescribeCertificate(issued->certificate_pem);
  if (!subject.ok()) return subject.status();
  CredentialInfo credential{.serial = subject->serial,
                            .host = request.host_name(),
                            .token_id = token->id,
                            .issued = now,
                            .expires = subject->not_after,
                            .revoked = std::nullopt,
                            .read = token->read};
  if (Status recorded = registry_.RecordCredential(credential); !recorded.ok()) return recorded;
  reply.set_certificate_pem(issued->certificate_pem);
  reply.set_expires_unix_seconds(
      std::chrono::duration_cast<std::chrono::seconds>(subject->not_after.time_since_epoch())
          .count());
  log_.Info("enrolled", {{token->read ? "reader" : "host", request.host_name()},
                         {"token", token->id},
                         {"serial", subject->serial}});
  return Status();
}

grpc::ServerUnaryReactor* EnrollmentService::Enroll(grpc::CallbackServerContext* context,
                                                    const perfhive::v1::EnrollRequest* request,
                                                    perfhive::v1::EnrollReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  Status status = EnrollHost(*request, *reply);
  if (!status.ok()) {
    log_.WarnOncePerBurst(
        "enrollment-refused", context->peer(),
        {{"peer", context->peer()}, {"host", request->host_name()}, {"message", status.message()}});
  }
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

}  // namespace perfhive
