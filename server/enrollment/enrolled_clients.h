// EnrolledClients: who a client certificate speaks for. A certificate this server's CA issued at
// enrollment (server/enrollment/enrollment_service.h) names one host; TLS has checked that it
// chains to the CA, and this checks that the registry knows it and has not revoked it. Its
// principal may write as that host only; a reader's certificate (perfhive login) may read and write
// nothing.

#ifndef PERFHIVE_SERVER_ENROLLMENT_ENROLLED_CLIENTS_H_
#define PERFHIVE_SERVER_ENROLLMENT_ENROLLED_CLIENTS_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "server/enrollment/enrollment_registry.h"
#include "server/enrollment/token_table.h"

namespace perfhive {

class EnrolledClients {
 public:
  explicit EnrolledClients(EnrollmentRegistry& registry) : registry_(registry) {}

  // The principal of the call's verified client certificate; nothing when the call has none.
  // UNAUTHENTICATED, saying why, for a certificate the registry does not know, one revoked, or
  // one whose name is not the host it was issued to.
  Result<std::optional<Principal>> FromPeer(const grpc::AuthContext& auth,
                                            std::chrono::system_clock::time_point now) const;

  // Why each certificate revoked at or after `since` may no longer be used, by serial (lower
  // case).
  Result<std::map<std::string, std::string>> RevokedSince(
      std::chrono::system_clock::time_point since) const;

 private:
  EnrollmentRegistry& registry_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ENROLLMENT_ENROLLED_CLIENTS_H_
