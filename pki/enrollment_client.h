// The client's side of enrollment, shared by the agent (a host's credential) and the CLI (a
// reader's, perfhive login): one Enroll call with a key made here, and the credential's two
// files, key.pem (readable by its owner only; on Windows by SYSTEM and Administrators) and
// certificate.pem, in a folder of the caller's. docs/enrollment.md.

#ifndef PERFHIVE_PKI_ENROLLMENT_CLIENT_H_
#define PERFHIVE_PKI_ENROLLMENT_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "pki/certificate_request.h"
#include "port/env.h"

namespace perfhive {

struct EnrolledCredential {
  std::string key_pem;
  std::string certificate_pem;  // the certificate, then the CA's
  std::chrono::system_clock::time_point expires;
};

// Asks `channel`'s Enrollment service once for a certificate for `name` and the key of `made`;
// an agentless poller names the hosts it polls as `targets`, which the certificate may write as
// too. A failure keeps gRPC's code (UNAUTHENTICATED for a refused token, UNAVAILABLE for no
// server) and the server's message.
Result<EnrolledCredential> RequestCertificate(const std::shared_ptr<grpc::Channel>& channel,
                                              const std::string& token, const std::string& name,
                                              const KeyAndRequest& made,
                                              const std::vector<std::string>& targets = {});

// The credential in `dir`, or nothing when it has none.
Result<std::optional<EnrolledCredential>> LoadCredential(Env& env, const std::string& dir);
Status SaveCredential(Env& env, const std::string& dir, const EnrolledCredential& credential);

}  // namespace perfhive

#endif  // PERFHIVE_PKI_ENROLLMENT_CLIENT_H_
