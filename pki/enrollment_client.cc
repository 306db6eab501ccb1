#include "pki/enrollment_client.h"

#include "perfhive/v1/enroll.grpc.pb.h"

namespace perfhive {
namespace {

constexpr char kKeyFile[] = "/key.pem";
constexpr char kCertificateFile[] = "/certificate.pem";

}  // namespace

Result<EnrolledCredential> RequestCertificate(const std::shared_ptr<grpc::Channel>& channel,
                                              const std::string& token, const std::string& name,
                                              const KeyAndRequest& made,
                                              const std::vector<std::string>& targets) {
  std::unique_ptr<v1::Enrollment::Stub> stub = v1::Enrollment::NewStub(channel);
  v1::EnrollRequest request;
  request.set_token(token);
  request.set_host_name(name);
  request.set_request_pem(made.request_pem);
  for (const std::string& target : targets) request.add_targets(target);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::EnrollReply reply;
  grpc::Status status = stub->Enroll(&context, request, &reply);
  if (!status.ok()) {
    return Status(static_cast<StatusCode>(status.error_code()), status.error_message());
  }
  Result<CertificateSubject> subject = DescribeCertificate(reply.certificate_pem());
  if (!subject.ok()) return subject.status().Prefixed("the enrolled certificate: ");
  return EnrolledCredential{.key_pem = made.key_pem,
                            .certificate_pem = reply.certificate_pem(),
                            .expires = subject->not_after};
}

Result<std::optional<EnrolledCredential>> LoadCredential(Env& env, const std::string& dir) {
  Result<std::string> certificate = ReadTextFile(env, dir + kCertificateFile);
  if (!certificate.ok()) {
    if (certificate.status().code() == StatusCode::kNotFound) {
      return std::optional<EnrolledCredential>();
    }
    return certificate.status();
  }
  Result<std::string> key = ReadTextFile(env, dir + kKeyFile);
  if (!key.ok()) return key.status().Prefixed("the credential's key: ");
  Result<CertificateSubject> subject = DescribeCertificate(*certificate);
  if (!subject.ok()) return subject.status().Prefixed(dir + kCertificateFile + ": ");
  return std::optional<EnrolledCredential>(EnrolledCredential{
      .key_pem = *key, .certificate_pem = *certificate, .expires = subject->not_after});
}

Status SaveCredential(Env& env, const std::string& dir, const EnrolledCredential& credential) {
  if (Status made = env.CreateDirectories(dir); !made.ok()) return made;
  if (Status written = env.WriteSecretFileAtomically(dir + kKeyFile, TextBytes(credential.key_pem));
      !written.ok()) {
    return written;
  }
  return env.WriteFileAtomically(dir + kCertificateFile, TextBytes(credential.certificate_pem));
}

}  // namespace perfhive
