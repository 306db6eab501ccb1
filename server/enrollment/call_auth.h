// The principal of a gRPC call: from its "authorization" metadata (a token of the token table),
// or, without one, from the client certificate an enrolled agent presents.

#ifndef PERFHIVE_SERVER_ENROLLMENT_CALL_AUTH_H_
#define PERFHIVE_SERVER_ENROLLMENT_CALL_AUTH_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <optional>

#include "server/enrollment/enrolled_clients.h"
#include "server/enrollment/token_table.h"

namespace perfhive {

// `enrolled` is null where enrollment is off (a server without its own CA).
inline Result<Principal> AuthenticateCall(const TokenTable& tokens, const EnrolledClients* enrolled,
                                          const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto header = metadata.find("authorization");
  std::string_view authorization;
  if (header != metadata.end()) authorization = {header->second.data(), header->second.size()};
  if (authorization.empty() && enrolled != nullptr) {
    Result<std::optional<Principal>> certified =
        enrolled->FromPeer(*context.auth_context(), std::chrono::system_clock::now());
    if (!certified.ok()) return certified.status();
    if (certified->has_value()) return std::move(**certified);
  }
  return tokens.Authenticate(authorization);
}

// perfhive's Status as gRPC's: the codes are the same numbers.
inline grpc::Status ToGrpcStatus(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), status.message());
}

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ENROLLMENT_CALL_AUTH_H_
