#include "server/app/server_credentials.h"

#include <fstream>
#include <sstream>
#include <utility>

#include "server/app/listen_address.h"
#include "server/enrollment/server_pki.h"

namespace perfhive {
namespace {

Result<std::string> ReadText(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(std::string("cannot read the ") + what + " " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A secret kept in a file, without the line end an editor adds.
Result<std::string> ReadSecret(const std::string& path, const char* what) {
  Result<std::string> text = ReadText(path, what);
  if (!text.ok()) return text;
  while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
  return text;
}

// A receiver's HTTP options from the files that hold its secrets; `receiver` names it in errors.
Result<HttpClientOptions> ReceiverHttp(const std::string& bearer_token_file,
                                       const std::string& user, const std::string& password_file,
                                       const std::string& ca, const std::string& receiver) {
  HttpClientOptions http;
  if (!bearer_token_file.empty()) {
    Result<std::string> token = ReadSecret(bearer_token_file, (receiver + " bearer token").c_str());
    if (!token.ok()) return token.status();
    http.bearer_token = *token;
  }
  if (!user.empty()) {
    http.username = user;
    if (!password_file.empty()) {
      Result<std::string> password = ReadSecret(password_file, (receiver + " password").c_str());
      if (!password.ok()) return password.status();
      http.password = *password;
    }
  }
  http.ca_file = ca;
  return http;
}

}  // namespace

Result<std::optional<OwnCa>> LoadOwnCa(const ServerConfig& options) {
  if (options.insecure) return std::optional<OwnCa>();
  ServerPkiPaths paths = PkiPaths(options.data);
  Result<std::string> certificate = ReadText(paths.ca_certificate, "CA certificate");
  if (!certificate.ok()) return std::optional<OwnCa>();
  Result<std::string> key = ReadText(paths.ca_key, "CA key");
  if (!key.ok()) return key.status();
  Result<CertificateAuthority> ca = CertificateAuthority::Load(*certificate, *key);
  if (!ca.ok()) return ca.status().Prefixed(paths.ca_certificate + ": ");
  return std::optional<OwnCa>(OwnCa{std::move(ca).value(), *certificate});
}

Result<std::shared_ptr<grpc::ServerCredentials>> GrpcServerCredentials(
    const ServerConfig& options, const std::optional<OwnCa>& own_ca) {
  if (options.insecure) {
    if (!IsLoopback(options.listen)) {
      return Status::InvalidArgument(
          "--insecure listens on loopback only (127.0.0.1, localhost, [::1]); for " +
          options.listen + " give --tls-cert and --tls-key (tls_cert, tls_key in the config file)");
    }
    return grpc::InsecureServerCredentials();
  }
  if (options.tls_cert.empty() || options.tls_key.empty()) {
    return Status::InvalidArgument(
        "no TLS certificate: run perfhive-server init --data " + options.data +
        " --name NAME once (or give --tls-cert and --tls-key), and --tokens; or --insecure for "
        "plain text on loopback (in the config file: tls_cert, tls_key, tokens, insecure)");
  }
  Result<std::string> cert = ReadText(options.tls_cert, "TLS certificate");
  if (!cert.ok()) return cert.status();
  Result<std::string> key = ReadText(options.tls_key, "TLS key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  if (!options.client_ca.empty()) {
    Result<std::string> ca = ReadText(options.client_ca, "client CA");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
    ssl.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  } else if (own_ca.has_value()) {
    ssl.pem_root_certs = own_ca->certificate_pem;
    ssl.client_certificate_request = GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(ssl);
}

Result<HttpClientOptions> RemoteWriteHttp(const ServerConfig& options) {
  return ReceiverHttp(options.remote_write_bearer_token_file, options.remote_write_user,
                      options.remote_write_password_file, options.remote_write_ca, "remote-write");
}

Result<HttpClientOptions> AlertmanagerHttp(const ServerConfig& options) {
  return ReceiverHttp(options.alertmanager_bearer_token_file, options.alertmanager_user,
                      options.alertmanager_password_file, options.alertmanager_ca, "Alertmanager");
}

}  // namespace perfhive
