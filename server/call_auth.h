// The principal of a gRPC call, from its "authorization" metadata.

#ifndef PERFHIVE_SERVER_CALL_AUTH_H_
#define PERFHIVE_SERVER_CALL_AUTH_H_

#include <grpcpp/grpcpp.h>

#include "server/token_table.h"

namespace perfhive {

inline Result<Principal> AuthenticateCall(const TokenTable& tokens,
                                          const grpc::CallbackServerContext& context) {
  const auto& metadata = context.client_metadata();
  auto header = metadata.find("authorization");
  std::string_view authorization;
  if (header != metadata.end()) authorization = {header->second.data(), header->second.size()};
  return tokens.Authenticate(authorization);
}

// perfhive's Status as gRPC's: the codes are the same numbers.
inline grpc::Status ToGrpcStatus(const Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), status.message());
}

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_CALL_AUTH_H_
