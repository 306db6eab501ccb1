// How the CLI reaches a perfhive-server: address, TLS or plain text, and the token, from flags,
// else the environment (PERFHIVE_SERVER, PERFHIVE_TOKEN_FILE, PERFHIVE_CA), else a config file
// ($PERFHIVE_CONFIG, or ~/.config/perfhive/cli.toml:
//   server = "central:7470"
//   ca = "/etc/perfhive/ca.pem"
//   token_file = "/home/me/.perfhive-token"
//   insecure = false
// ); and gRPC errors turned into messages that say how to fix them.

#ifndef PERFHIVE_CLI_SERVER_CONNECTION_H_
#define PERFHIVE_CLI_SERVER_CONNECTION_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "base/status.h"

namespace perfhive::cli {

struct ConnectionOptions {
  std::string server;  // HOST:PORT; empty: $PERFHIVE_SERVER, else 127.0.0.1:7470
  bool insecure = false;
  std::string ca;          // PEM of the CA the server's certificate chains to
  std::string ca_sha256;   // or that CA's fingerprint (pki/fingerprint.h)
  std::string cert;        // client certificate for mutual TLS
  std::string key;         // its key
  std::string token_file;  // empty: $PERFHIVE_TOKEN_FILE, else no token
};

// The CLI's config file: $PERFHIVE_CONFIG, else ~/.config/perfhive/cli.toml; empty without a
// home folder.
std::string CliConfigFile();

class ServerConnection {
 public:
  static Result<ServerConnection> Open(const ConnectionOptions& options);

  // A context carrying the token, with a deadline.
  std::unique_ptr<grpc::ClientContext> NewContext(
      std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  const std::string& address() const { return address_; }
  // The fingerprint the server's CA was pinned to (flag, environment or config file), if any.
  const std::string& ca_sha256() const { return ca_sha256_; }

  // A failed call as a Status with a message for a person ("cannot reach the server at ...").
  Status Explain(const grpc::Status& status) const;

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::string ca_sha256_;
  std::string address_;
  std::string token_;
};

// Exit codes the CLI's commands return (docs/cli.md): scripts may rely on them.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;        // anything else
inline constexpr int kExitUsage = 2;        // bad flags, bad path, bad time
inline constexpr int kExitNotFound = 3;     // no such host, object, counter or sample
inline constexpr int kExitUnavailable = 4;  // the server cannot be reached or cannot answer now
inline constexpr int kExitDenied = 5;       // no token, or the token may not do this
inline constexpr int kExitHolds = 6;        // a condition asked for holds now: query --held, or a
                                            // health finding newer than --since

int ExitCodeFor(const Status& status);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_SERVER_CONNECTION_H_
