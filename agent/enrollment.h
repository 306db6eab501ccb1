// The agent's own credential, from enrollment: a key it made, which never leaves this host, and
// the client certificate the server's CA issued for its host name in exchange for an
// enrollment token (perfhive-agent run --enroll TOKEN; server/enrollment/enrollment_service.h).
// Both live in the state directory, credentials/<host>/key.pem (readable by the agent's user, or on
// Windows SYSTEM and Administrators, only) and certificate.pem. docs/enrollment.md.

#ifndef PERFHIVE_AGENT_ENROLLMENT_H_
#define PERFHIVE_AGENT_ENROLLMENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/logger.h"
#include "base/status.h"
#include "pki/enrollment_client.h"
#include "port/env.h"

namespace perfhive {

// credentials/<host, folded as spool folders are> under the agent's state directory.
std::string CredentialDirectory(const std::string& host_name);

// Makes a key and a certificate request for `host_name`, sends them with `token` to the
// server's Enrollment service over `credentials` (TLS trusting the server's CA, no client
// certificate), and keeps the key and the certificate in `dir`. An agentless poller names the
// hosts it polls as `targets`: its certificate may write as them too. While the server cannot be
// reached it tries again, up to a minute apart, logging the first failure of each kind; a
// refusal (a token unknown, revoked, expired, used up, or not for this host or a target) is
// returned.
Result<EnrolledCredential> EnrollAgent(Env& env, const std::string& server,
                                       std::shared_ptr<grpc::ChannelCredentials> credentials,
                                       const std::string& token, const std::string& host_name,
                                       const std::vector<std::string>& targets,
                                       const std::string& dir, Logger& log);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_ENROLLMENT_H_
