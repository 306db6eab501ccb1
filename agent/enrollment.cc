#include "agent/enrollment.h"

#include <algorithm>
#include <span>
#include <vector>

#include "agent/agent_config.h"
#include "perfhive/v1/enroll.grpc.pb.h"
#include "pki/certificate_request.h"

namespace perfhive {
namespace {

constexpr char kKeyFile[] = "/key.pem";
constexpr char kCertificateFile[] = "/certificate.pem";

// Refusals end enrolling; everything else (no server yet, a network cut) is tried again.
bool IsRefusal(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::INVALID_ARGUMENT ||
         code == grpc::StatusCode::PERMISSION_DENIED || code == grpc::StatusCode::UNIMPLEMENTED;
}

}  // namespace

std::string CredentialDirectory(const std::string& host_name) {
  return AgentStateDirectory() + "/credentials/" + SpoolFolderName(host_name);
}

Result<std::optional<AgentCredential>> LoadCredential(Env& env, const std::string& dir) {
  Result<std::string> certificate = ReadTextFile(env, dir + kCertificateFile);
  if (!certificate.ok()) {
    if (certificate.status().code() == StatusCode::kNotFound) {
      return std::optional<AgentCredential>();
    }
    return certificate.status();
  }
  Result<std::string> key = ReadTextFile(env, dir + kKeyFile);
  if (!key.ok()) return key.status().Prefixed("the credential's key: ");
  Result<CertificateSubject> subject = DescribeCertificate(*certificate);
  if (!subject.ok()) return subject.status().Prefixed(dir + kCertificateFile + ": ");
  return std::optional<AgentCredential>(AgentCredential{
      .key_pem = *key, .certificate_pem = *certificate, .expires = subject->not_after});
}

Result<AgentCredential> EnrollAgent(Env& env, const std::string& server,
                                    std::shared_ptr<grpc::ChannelCredentials> credentials,
                                    const std::string& token, const std::string& host_name,
                                    const std::string& dir, Logger& log) {
  Result<KeyAndRequest> made = MakeKeyAndRequest(host_name);
  if (!made.ok()) return made.status();
  std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(server, std::move(credentials));
  std::unique_ptr<v1::Enrollment::Stub> stub = v1::Enrollment::NewStub(channel);
  v1::EnrollRequest request;
  request.set_token(token);
  request.set_host_name(host_name);
  request.set_request_pem(made->request_pem);
  std::chrono::seconds wait(1);
  std::string last_failure;
  for (;;) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::EnrollReply reply;
    grpc::Status status = stub->Enroll(&context, request, &reply);
    if (status.ok()) {
      Result<CertificateSubject> subject = DescribeCertificate(reply.certificate_pem());
      if (!subject.ok()) return subject.status().Prefixed("the enrolled certificate: ");
      if (Status status_dir = env.CreateDirectories(dir); !status_dir.ok()) return status_dir;
      if (Status written = env.WriteSecretFileAtomically(dir + kKeyFile, TextBytes(made->key_pem));
          !written.ok()) {
        return written;
      }
      if (Status written =
              env.WriteFileAtomically(dir + kCertificateFile, TextBytes(reply.certificate_pem()));
          !written.ok()) {
        return written;
      }
      return AgentCredential{.key_pem = made->key_pem,
                             .certificate_pem = reply.certificate_pem(),
                             .expires = subject->not_after};
    }
    if (IsRefusal(status.error_code())) {
      return Status(static_cast<StatusCode>(status.error_code()),
                    "enrollment refused by " + server + ": " + status.error_message());
    }
    if (status.error_message() != last_failure) {
      last_failure = status.error_message();
      log.Warning("enrolling at " + server + ": " + last_failure + "; trying again");
    }
    env.SleepFor(wait);
    wait = std::min<std::chrono::seconds>(wait * 2, std::chrono::seconds(60));
  }
}

}  // namespace perfhive
