// The server's own certificate authority and TLS certificate in its data directory, made by
// `perfhive-server init` (docs/enrollment.md): DIR/pki/ca.pem and ca.key, server.pem (the
// server's certificate, then the CA's) and server.key, keys readable by the server's user only.
// A server started with --data DIR and no --tls-cert uses them, so the secure setup is as
// short as --insecure: init once, then give agents the CA's fingerprint.

#ifndef PERFHIVE_SERVER_ENROLLMENT_SERVER_PKI_H_
#define PERFHIVE_SERVER_ENROLLMENT_SERVER_PKI_H_

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "port/env.h"

namespace perfhive {

struct ServerPkiPaths {
  std::string ca_certificate;
  std::string ca_key;
  std::string certificate;
  std::string key;
};
ServerPkiPaths PkiPaths(const std::string& data_dir);

struct InitOptions {
  std::string data_dir;
  std::vector<std::string> names;      // DNS names agents dial
  std::vector<std::string> addresses;  // IP addresses agents dial
  std::chrono::seconds ca_valid = std::chrono::hours(24 * 3653);
  std::chrono::seconds certificate_valid = std::chrono::hours(24 * 825);
};

// Makes the CA when the data directory has none, then (again, on every run) the server's key
// and certificate for `names` and `addresses` and the loopback names (localhost, 127.0.0.1,
// ::1), so that a run with other names or one near the certificate's expiry replaces it while
// the CA, and the fingerprint every agent pins, stay. Writes what it did and the fingerprint to
// `out`. INVALID_ARGUMENT for a malformed name or address, before anything is written.
Status InitServerPki(Env& env, const InitOptions& options, std::ostream& out);

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ENROLLMENT_SERVER_PKI_H_
