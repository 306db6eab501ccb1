// What perfhive-server reads from files to prove who it is and to reach others: its own CA (made
// by `perfhive-server init`), the TLS credentials its gRPC port listens with, and the secrets of
// the remote-write receivers it pushes to.

#ifndef PERFHIVE_SERVER_APP_SERVER_CREDENTIALS_H_
#define PERFHIVE_SERVER_APP_SERVER_CREDENTIALS_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <optional>
#include <string>

#include "base/status.h"
#include "export/http_client.h"
#include "pki/certificate_authority.h"
#include "server/app/server_config.h"

namespace perfhive {

// The server's own CA when `perfhive-server init` made one in the data directory: it signs the
// certificates of enrolling agents, and TLS asks clients for one (without requiring it: token
// holders have none).
struct OwnCa {
  CertificateAuthority ca;
  std::string certificate_pem;
};
// Nothing with --insecure or where the data directory holds no CA certificate.
Result<std::optional<OwnCa>> LoadOwnCa(const ServerConfig& options);

// Plain text on loopback with --insecure; else TLS with the configured certificate, asking
// clients for certificates of the configured client CA (required) or of `own_ca` (optional).
Result<std::shared_ptr<grpc::ServerCredentials>> GrpcServerCredentials(
    const ServerConfig& options, const std::optional<OwnCa>& own_ca);

// How the remote-write exporters authenticate: bearer token or user and password, each from a
// file, and the CA their receivers' certificates chain to.
Result<HttpClientOptions> RemoteWriteHttp(const ServerConfig& options);
// The same for the Alertmanager the alerts go to.
Result<HttpClientOptions> AlertmanagerHttp(const ServerConfig& options);

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_APP_SERVER_CREDENTIALS_H_
