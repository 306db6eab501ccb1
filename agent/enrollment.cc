#include "agent/enrollment.h"

#include <algorithm>

#include "agent/agent_config.h"
#include "pki/certificate_request.h"

namespace perfhive {
namespace {

// Refusals end enrolling; everything else (no server yet, a network cut) is tried again.
bool IsRefusal(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAUTHENTICATED || code == grpc::StatusCode::INVALID_ARGUMENT ||
         code == grpc::StatusCode::PERMISSION_DENIED || code == grpc::StatusCode::UNIMPLEMENTED;
}

}  // namespace

std::string CredentialDirectory(const std::string& host_name) {
  return AgentStateDirectory() + "/credentials/" + SpoolFolderName(host_name);
}

Result<EnrolledCredential> EnrollAgent(Env& env, const std::string& server,
                                       std::shared_ptr<grpc::ChannelCredentials> credentials,
                                       const std::string& token, const std::string& host_name,
                                       const std::vector<std::string>& targets,
                                       const std::string& dir, Logger& log) {
  Result<KeyAndRequest> made = MakeKeyAndRequest(host_name);
  if (!made.ok()) return made.status();
  std::shared_ptr<grpc::Channel> channel = grpc::CreateChannel(server, std::move(credentials));
  std::chrono::seconds wait(1);
  std::string last_failure;
  for (;;) {
    Result<EnrolledCredential> enrolled =
        RequestCertificate(channel, token, host_name, *made, targets);
    if (enrolled.ok()) {
      if (Status saved = SaveCredential(env, dir, *enrolled); !saved.ok()) return saved;
      return enrolled;
    }
    if (IsRefusal(static_cast<grpc::StatusCode>(enrolled.status().code()))) {
      return Status(enrolled.status().code(),
                    "enrollment refused by " + server + ": " + enrolled.error());
    }
    if (enrolled.error() != last_failure) {
      last_failure = enrolled.error();
      log.Warning("enrolling at " + server + ": " + last_failure + "; trying again");
    }
    env.SleepFor(wait);
    wait = std::min<std::chrono::seconds>(wait * 2, std::chrono::seconds(60));
  }
}

}  // namespace perfhive
