// QueryService: the server side of perfhive.v1.Query, over the store. Every call needs a token
// that may read (or --insecure).

#ifndef PERFHIVE_SERVER_QUERY_SERVICE_H_
#define PERFHIVE_SERVER_QUERY_SERVICE_H_

#include "perfhive/v1/query.grpc.pb.h"
#include "server/token_table.h"
#include "store/store.h"

namespace perfhive {

class QueryService final : public perfhive::v1::Query::CallbackService {
 public:
  QueryService(Store& store, const TokenTable& tokens) : store_(store), tokens_(tokens) {}

  grpc::ServerUnaryReactor* ListHosts(grpc::CallbackServerContext* context,
                                      const perfhive::v1::ListHostsRequest* request,
                                      perfhive::v1::ListHostsResponse* response) override;
  grpc::ServerWriteReactor<perfhive::v1::SnapshotInfo>* ListSnapshots(
      grpc::CallbackServerContext* context,
      const perfhive::v1::ListSnapshotsRequest* request) override;
  grpc::ServerUnaryReactor* GetRawSnapshot(grpc::CallbackServerContext* context,
                                           const perfhive::v1::GetRawSnapshotRequest* request,
                                           perfhive::v1::RawSnapshot* response) override;

 private:
  // The caller may read, or the error to finish with.
  Status Authorize(const grpc::CallbackServerContext& context) const;
  // The stored host named `name` (ignoring case), or NOT_FOUND naming the hosts that come close.
  Result<HostRecord> FindHost(const std::string& name);

  Store& store_;
  const TokenTable& tokens_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_QUERY_SERVICE_H_
