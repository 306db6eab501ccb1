#include "server/enrollment/enrollment_service.h"

#include "perfdata/host_name.h"
#include "pki/certificate_request.h"
#include "server/enrollment/call_auth.h"

namespace perfhive {
namespace {

int64_t UnixSeconds(std::chrono::system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
}

}  // namespace

Status EnrollmentService::EnrollHost(const perfhive::v1::EnrollRequest& request,
                                     perfhive::v1::EnrollReply& reply) {
  if (Status valid = CheckHostName(request.host_name()); !valid.ok()) {
    return valid.Prefixed("host name: ");
  }
  auto now = std::chrono::system_clock::now();
  // The request is read and its signature checked before the token is spent: a damaged one, or
  // one not signed by its own key, costs no use.
  if (Status valid = VerifyCertificateRequest(request.request_pem()); !valid.ok()) {
    return valid.Prefixed("enrollment: ");
  }
  std::vector<std::string> targets(request.targets().begin(), request.targets().end());
  Result<EnrollmentTokenInfo> token =
      registry_.Redeem(request.token(), request.host_name(), now, targets);
  if (!token.ok()) return token.status();
  Result<IssuedCredential> issued =
      IssueAndRecord(request.request_pem(), CredentialInfo{.serial = "",
                                                           .host = request.host_name(),
                                                           .token_id = token->id,
                                                           .issued = now,
                                                           .expires = {},
                                                           .revoked = std::nullopt,
                                                           .read = token->read,
                                                           .targets = targets});
  if (!issued.ok()) return issued.status();
  reply.set_certificate_pem(issued->certificate_pem);
  reply.set_expires_unix_seconds(UnixSeconds(issued->credential.expires));
  ServerLog::Fields fields = {{token->read ? "reader" : "host", request.host_name()},
                              {"token", token->id},
                              {"serial", issued->credential.serial}};
  if (!targets.empty()) fields.emplace_back("targets", std::to_string(targets.size()));
  log_.Info("enrolled", fields);
  return Status();
}

Result<EnrollmentService::Renewal> EnrollmentService::RenewalDue(const std::string& serial) {
  Result<CredentialInfo> credential = registry_.FindCredential(serial);
  if (!credential.ok()) return credential.status();
  return Renewal{.due = credential->issued + (credential->expires - credential->issued) * 2 / 3,
                 .expires = credential->expires};
}

Result<perfhive::v1::RenewedCertificate> EnrollmentService::Renew(const std::string& serial,
                                                                  const std::string& request_pem) {
  if (Status valid = VerifyCertificateRequest(request_pem); !valid.ok()) {
    return valid.Prefixed("renewal: ");
  }
  Result<CredentialInfo> current = registry_.FindCredential(serial);
  if (!current.ok()) return current.status();
  auto now = std::chrono::system_clock::now();
  if (current->revoked || current->expires <= now) {
    return Status(StatusCode::kUnauthenticated,
                  "certificate " + serial + " of " + current->host + " is " +
                      (current->revoked ? "revoked" : "expired") + ": it cannot be renewed");
  }
  CredentialInfo next = *current;
  next.issued = now;
  Result<IssuedCredential> issued = IssueAndRecord(request_pem, std::move(next), serial);
  if (!issued.ok()) return issued.status();
  log_.Info("renewed", {{current->read ? "reader" : "host", current->host},
                        {"serial", issued->credential.serial},
                        {"previous", serial}});
  perfhive::v1::RenewedCertificate reply;
  reply.set_certificate_pem(issued->certificate_pem);
  reply.set_expires_unix_seconds(UnixSeconds(issued->credential.expires));
  return reply;
}

Result<EnrollmentService::IssuedCredential> EnrollmentService::IssueAndRecord(
    const std::string& request_pem, CredentialInfo credential, std::string_view renews) {
  Result<IssuedCertificate> issued =
      ca_.IssueClientCertificate(request_pem, credential.host, validity_);
  if (!issued.ok()) return issued.status();
  Result<CertificateSubject> subject = DescribeCertificate(issued->certificate_pem);
  if (!subject.ok()) return subject.status();
  credential.serial = subject->serial;
  credential.expires = subject->not_after;
  credential.revoked = std::nullopt;
  if (Status recorded = registry_.RecordCredential(credential, renews); !recorded.ok()) {
    return recorded;
  }
  return IssuedCredential{.certificate_pem = std::move(issued->certificate_pem),
                          .credential = std::move(credential)};
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
