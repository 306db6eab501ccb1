#include "cli/server_connection.h"

#include <toml++/toml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>

#include "config/toml_settings.h"
#include "pki/pinned_ca.h"

namespace perfhive::cli {
namespace {

constexpr char kDefaultServer[] = "127.0.0.1:7470";

std::string FromEnvironment(const std::string& given, const char* variable) {
  if (!given.empty()) return given;
  const char* value = std::getenv(variable);
  return value ? value : "";
}

Result<std::string> ReadText(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(std::string("cannot read the ") + what + " " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The settings a config file gives, for what neither a flag nor the environment set. A missing
// default file is no error; a file named by $PERFHIVE_CONFIG must exist.
Result<ConnectionOptions> FromConfigFile(ConnectionOptions options) {
  std::string path = CliConfigFile();
  if (path.empty()) return options;
  const char* named = std::getenv("PERFHIVE_CONFIG");
  bool must_exist = named != nullptr && *named != '\0';
  if (!must_exist && !std::ifstream(path)) return options;
  Result<std::string> text = ReadText(path, "config file");
  if (!text.ok()) return text.status();
  Result<toml::table> parsed = ParseTomlSettings(*text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& config = *parsed;
  auto fill = [&](std::string& field, const char* key, const char* variable) {
    if (field.empty() && std::getenv(variable) == nullptr) {
      field = config[key].value_or(std::string());
    }
  };
  fill(options.server, "server", "PERFHIVE_SERVER");
  fill(options.ca, "ca", "PERFHIVE_CA");
  fill(options.ca_sha256, "ca_sha256", "PERFHIVE_CA_SHA256");
  fill(options.token_file, "token_file", "PERFHIVE_TOKEN_FILE");
  if (options.cert.empty()) options.cert = config["cert"].value_or(std::string());
  if (options.key.empty()) options.key = config["key"].value_or(std::string());
  if (!options.insecure) options.insecure = config["insecure"].value_or(false);
  return options;
}

}  // namespace

std::string CliConfigFile() {
  const char* named = std::getenv("PERFHIVE_CONFIG");
  if (named != nullptr && *named != '\0') return named;
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return std::string(home) + "/.config/perfhive/cli.toml";
}

Result<ServerConnection> ServerConnection::Open(const ConnectionOptions& given) {
  Result<ConnectionOptions> configured = FromConfigFile(given);
  if (!configured.ok()) return configured.status();
  const ConnectionOptions& options = *configured;
  ServerConnection connection;
  connection.address_ = FromEnvironment(options.server, "PERFHIVE_SERVER");
  if (connection.address_.empty()) connection.address_ = kDefaultServer;
  std::string token_file = FromEnvironment(options.token_file, "PERFHIVE_TOKEN_FILE");
  if (!token_file.empty()) {
    Result<std::string> token = ReadText(token_file, "token file");
    if (!token.ok()) return token.status();
    connection.token_ = *token;
    while (!connection.token_.empty() &&
           (connection.token_.back() == '\n' || connection.token_.back() == '\r' ||
            connection.token_.back() == ' ')) {
      connection.token_.pop_back();
    }
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (options.insecure) {
    credentials = grpc::InsecureChannelCredentials();
  } else {
    ClientTls tls;
    tls.ca_sha256 = FromEnvironment(options.ca_sha256, "PERFHIVE_CA_SHA256");
    connection.ca_sha256_ = tls.ca_sha256;
    const std::string ca = FromEnvironment(options.ca, "PERFHIVE_CA");
    for (auto [path, text, what] :
         {std::tuple{&ca, &tls.ca_pem, "CA file"},
          std::tuple{&options.cert, &tls.certificate_pem, "client certificate"},
          std::tuple{&options.key, &tls.key_pem, "client key"}}) {
      if (path->empty()) continue;
      Result<std::string> pem = ReadText(*path, what);
      if (!pem.ok()) return pem.status();
      *text = std::move(pem).value();
    }
    Result<std::shared_ptr<grpc::ChannelCredentials>> tls_credentials =
        ClientChannelCredentials(tls);
    if (!tls_credentials.ok()) return tls_credentials.status();
    credentials = std::move(tls_credentials).value();
  }
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(1 << 30);
  connection.channel_ = grpc::CreateCustomChannel(connection.address_, credentials, arguments);
  return connection;
}

std::unique_ptr<grpc::ClientContext> ServerConnection::NewContext(
    std::chrono::milliseconds timeout) const {
  auto context = std::make_unique<grpc::ClientContext>();
  if (!token_.empty()) context->AddMetadata("authorization", "Bearer " + token_);
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  return context;
}

Status ServerConnection::Explain(const grpc::Status& status) const {
  auto code = static_cast<StatusCode>(status.error_code());
  std::string message = status.error_message();
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return Status(code, "cannot reach perfhive-server at " + address_ + ": " + message +
                              " (is it running? give the address with --server or "
                              "PERFHIVE_SERVER; plain-text servers need --insecure)");
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return Status(code, "perfhive-server at " + address_ + " did not answer in time");
    case grpc::StatusCode::UNAUTHENTICATED:
      return Status(code, "perfhive-server refused the call: " + message +
                              " (give a token with --token-file or PERFHIVE_TOKEN_FILE)");
    case grpc::StatusCode::PERMISSION_DENIED:
      return Status(code, "perfhive-server refused the call: " + message);
    case grpc::StatusCode::ABORTED:  // kAborted is the CLI's own: a condition holds now
      return Status::Error(message);
    default:
      return Status(code == StatusCode::kOk ? StatusCode::kUnknown : code, message);
  }
}

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange:
      return kExitUsage;
    case StatusCode::kNotFound:
      return kExitNotFound;
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
      return kExitUnavailable;
    case StatusCode::kUnauthenticated:
    case StatusCode::kPermissionDenied:
      return kExitDenied;
    case StatusCode::kAborted:  // RunQuery's answer when a condition holds now
      return kExitHolds;
    default:
      return kExitError;
  }
}

}  // namespace perfhive::cli
