#include "server/app/server_config.h"

#include <toml++/toml.h>

#include <charconv>
#include <cstdint>
#include <map>

#include "config/toml_settings.h"
#include "server/enrollment/server_pki.h"

namespace perfhive {
namespace {

// Sizes, as the flags and the file write them: "64MiB", "50GB" (KB, MB, GB are powers of 1024
// too) or a number of bytes.
CLI::Validator SizeSyntax() { return CLI::AsSizeValue(false); }

// A non-negative integer, or a string in `syntax` (a size, an age) that comes to one.
Result<int64_t> QuantityValue(std::string_view origin, const toml::node& node, std::string_view key,
                              const CLI::Validator& syntax, std::string_view example) {
  std::string error =
      std::string(key) + " must be a number or a string such as \"" + std::string(example) + "\"";
  if (const auto* number = node.as_integer()) {
    if (number->get() < 0) return Status::InvalidArgument(TomlWhere(origin, node) + error);
    return number->get();
  }
  const auto* text = node.as_string();
  if (text == nullptr) return Status::InvalidArgument(TomlWhere(origin, node) + error);
  std::string converted = text->get();
  // CLI11's transform rewrites the text as the number it stands for, or refuses it (with a
  // message or an exception).
  bool refused = false;
  try {
    refused = !syntax(converted).empty();
  } catch (const CLI::Error&) {
    refused = true;
  }
  int64_t value = 0;
  if (refused) {
    return Status::InvalidArgument(TomlWhere(origin, node) + error + ", not \"" + text->get() +
                                   "\"");
  }
  auto [end, status] =
      std::from_chars(converted.data(), converted.data() + converted.size(), value);
  if (status != std::errc() || end != converted.data() + converted.size() || value < 0) {
    return Status::InvalidArgument(TomlWhere(origin, node) + error + ", not \"" + text->get() +
                                   "\"");
  }
  return value;
}

// The settings of a parsed file.
Status LoadTable(const toml::table& root, std::string_view origin, ServerConfig& config) {
  const std::map<std::string_view, std::string*> strings = {
      {"listen", &config.listen},
      {"data", &config.data},
      {"tls_cert", &config.tls_cert},
      {"tls_key", &config.tls_key},
      {"client_ca", &config.client_ca},
      {"tokens", &config.tokens},
      {"remote_write_bearer_token_file", &config.remote_write_bearer_token_file},
      {"remote_write_basic_auth_user", &config.remote_write_user},
      {"remote_write_basic_auth_password_file", &config.remote_write_password_file},
      {"remote_write_ca", &config.remote_write_ca},
      {"metrics_listen", &config.metrics_listen},
      {"http_listen", &config.http_listen},
      {"policies", &config.policies},
      {"rules", &config.rules},
      {"alertmanager", &config.alertmanager},
      {"alertmanager_bearer_token_file", &config.alertmanager_bearer_token_file},
      {"alertmanager_basic_auth_user", &config.alertmanager_user},
      {"alertmanager_basic_auth_password_file", &config.alertmanager_password_file},
      {"alertmanager_ca", &config.alertmanager_ca},
  };
  const std::map<std::string_view, std::vector<std::string>*> lists = {
      {"remote_write", &config.remote_write},
      {"export_include", &config.export_include},
      {"export_exclude", &config.export_exclude},
  };
  for (const auto& [key, value] : root) {
    if (auto field = strings.find(key.str()); field != strings.end()) {
      Result<std::string> text_value = TomlString(origin, value, key.str());
      if (!text_value.ok()) return text_value.status();
      *field->second = std::move(text_value).value();
    } else if (auto list = lists.find(key.str()); list != lists.end()) {
      Result<std::vector<std::string>> items = TomlStringList(origin, value, key.str());
      if (!items.ok()) return items.status();
      *list->second = std::move(items).value();
    } else if (key == "insecure" || key == "compact_groups") {
      const auto* flag = value.as_boolean();
      if (flag == nullptr) {
        return Status::InvalidArgument(TomlWhere(origin, value) + std::string(key.str()) +
                                       " must be true or false");
      }
      (key == "insecure" ? config.insecure : config.compact_groups) = flag->get();
    } else if (key == "max_snapshot_bytes" || key == "max_query_bytes" ||
               key == "max_ingest_bytes_in_flight" || key == "retention_size") {
      Result<int64_t> bytes = QuantityValue(origin, value, key.str(), SizeSyntax(), "64MiB");
      if (!bytes.ok()) return bytes.status();
      if (key == "retention_size") {
        config.retention_bytes = *bytes;
      } else if (*bytes == 0) {
        return Status::InvalidArgument(TomlWhere(origin, value) + std::string(key.str()) +
                                       " must be above 0");
      } else {
        (key == "max_snapshot_bytes"           ? config.max_snapshot_bytes
         : key == "max_ingest_bytes_in_flight" ? config.max_ingest_bytes_in_flight
                                               : config.max_query_bytes) =
            static_cast<uint64_t>(*bytes);
      }
    } else if (key == "retention_age") {
      Result<int64_t> seconds = QuantityValue(origin, value, key.str(), AgeSyntax(), "30d");
      if (!seconds.ok()) return seconds.status();
      config.retention_age_seconds = *seconds;
    } else if (key == "certificate_lifetime") {
      Result<int64_t> seconds = QuantityValue(origin, value, key.str(), AgeSyntax(), "90d");
      if (!seconds.ok()) return seconds.status();
      if (*seconds < 10) {
        return Status::InvalidArgument(TomlWhere(origin, value) +
                                       "certificate_lifetime must be at least 10s");
      }
      config.certificate_lifetime_seconds = *seconds;
    } else if (key == "max_snapshots_per_second") {
      std::optional<double> rate = value.is_boolean() ? std::nullopt : value.value<double>();
      if (!rate || !(*rate > 0)) {
        return Status::InvalidArgument(TomlWhere(origin, value) +
                                       "max_snapshots_per_second must be a number above 0");
      }
      config.max_snapshots_per_second = *rate;
    } else {
      return Status::InvalidArgument(TomlWhere(origin, value) + "unknown setting \"" +
                                     std::string(key.str()) + "\"");
    }
  }
  return Status();
}

}  // namespace

CLI::Validator AgeSyntax() {
  return CLI::AsNumberWithUnit(
      std::map<std::string, int64_t>{{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}},
      CLI::AsNumberWithUnit::CASE_SENSITIVE);
}

Status LoadServerConfigText(std::string_view text, std::string_view origin, ServerConfig& config) {
  Result<toml::table> root = ParseTomlSettings(text, origin);
  if (!root.ok()) return root.status();
  return LoadTable(*root, origin, config);
}

Status LoadServerConfigFile(Env& env, const std::string& path, ServerConfig& config) {
  Result<toml::table> root = ReadTomlSettings(env, path);
  if (!root.ok()) return root.status();
  return LoadTable(*root, path, config);
}

ServerFlags::ServerFlags(CLI::App& app) {
  app.add_option("--config", config_file_,
                 "TOML file with any of the settings below, each named as its flag without the "
                 "dashes and with '_' for '-' (tls_cert = \"...\"); flags given win over it");
  // In the order --help lists them.
  AddAccessFlags(app);
  AddStoreFlags(app);
  AddExportFlags(app);
  AddServiceFlags(app);
}

void ServerFlags::Add(CLI::Option* option, std::function<void(ServerConfig&)> apply) {
  given_.emplace_back(option, std::move(apply));
}

// Where it listens and keeps its data, and who may call it.
void ServerFlags::AddAccessFlags(CLI::App& app) {
  ServerConfig& v = values_;
  Add(app.add_option("--listen", v.listen,
                     "HOST:PORT to listen on (port 0: any free port); default 127.0.0.1:7470"),
      [&v](ServerConfig& c) { c.listen = v.listen; });
  Add(app.add_option("--data", v.data, "Directory of the embedded store (required)"),
      [&v](ServerConfig& c) { c.data = v.data; });
  Add(app.add_option("--tls-cert", v.tls_cert, "Server certificate (PEM)"),
      [&v](ServerConfig& c) { c.tls_cert = v.tls_cert; });
  Add(app.add_option("--tls-key", v.tls_key, "Server private key (PEM)"),
      [&v](ServerConfig& c) { c.tls_key = v.tls_key; });
  Add(app.add_option("--client-ca", v.client_ca,
                     "CA (PEM) that client certificates must chain to: mutual TLS"),
      [&v](ServerConfig& c) { c.client_ca = v.client_ca; });
  Add(app.add_option("--tokens", v.tokens,
                     "Token file (TOML): who may write as which hosts, who may read"),
      [&v](ServerConfig& c) { c.tokens = v.tokens; });
  Add(app.add_flag("--insecure", v.insecure,
                   "Plain text without tokens, on a loopback address only (demos and tests)"),
      [&v](ServerConfig& c) { c.insecure = v.insecure; });
}

// What the store and the ingest streams take, and how long the store keeps it.
void ServerFlags::AddStoreFlags(CLI::App& app) {
  ServerConfig& v = values_;
  Add(app.add_flag("--compact-groups,!--no-compact-groups", v.compact_groups,
                   "Rewrite each closed group of snapshots as one columnar block, about a third "
                   "of the size, in a pass beside the writer (default; docs/store_format.md)"),
      [&v](ServerConfig& c) { c.compact_groups = v.compact_groups; });
  Add(app.add_option("--max-snapshot-bytes", v.max_snapshot_bytes,
                     "Largest raw snapshot accepted, larger ones are refused; default 64MiB")
          ->transform(SizeSyntax()),
      [&v](ServerConfig& c) { c.max_snapshot_bytes = v.max_snapshot_bytes; });
  Add(app.add_option("--max-query-bytes", v.max_query_bytes,
                     "Most bytes of samples one query may restore, estimated before it reads "
                     "them; a larger query is refused saying how to narrow it; default 1GiB")
          ->transform(SizeSyntax())
          ->check(CLI::PositiveNumber),
      [&v](ServerConfig& c) { c.max_query_bytes = v.max_query_bytes; });
  Add(app.add_option("--max-snapshots-per-second", v.max_snapshots_per_second,
                     "Per stream; a faster sender is read more slowly; default 50")
          ->check(CLI::PositiveNumber),
      [&v](ServerConfig& c) { c.max_snapshots_per_second = v.max_snapshots_per_second; });
  Add(app.add_option("--max-ingest-bytes-in-flight", v.max_ingest_bytes_in_flight,
                     "Raw snapshot bytes being made durable, over all streams: past it a stream "
                     "with one in flight is read no further until it completes; default 256MiB")
          ->transform(SizeSyntax())
          ->check(CLI::PositiveNumber),
      [&v](ServerConfig& c) { c.max_ingest_bytes_in_flight = v.max_ingest_bytes_in_flight; });
  Add(app.add_option("--retention-age", v.retention_age_seconds,
                     "Delete snapshots older than this (e.g. 30d, 12h; default: keep)")
          ->transform(AgeSyntax()),
      [&v](ServerConfig& c) { c.retention_age_seconds = v.retention_age_seconds; });
  Add(app.add_option("--retention-size", v.retention_bytes,
                     "Delete the oldest snapshots while the store holds more (e.g. 50GB)")
          ->transform(SizeSyntax()),
      [&v](ServerConfig& c) { c.retention_bytes = v.retention_bytes; });
}

// What leaves for Prometheus-compatible engines.
void ServerFlags::AddExportFlags(CLI::App& app) {
  ServerConfig& v = values_;
  Add(app.add_option("--remote-write", v.remote_write,
                     "Push computed values to this Prometheus remote-write URL (repeatable), e.g. "
                     "http://prometheus:9090/api/v1/write"),
      [&v](ServerConfig& c) { c.remote_write = v.remote_write; });
  Add(app.add_option("--remote-write-bearer-token-file", v.remote_write_bearer_token_file,
                     "File holding the bearer token sent to the receivers"),
      [&v](ServerConfig& c) {
        c.remote_write_bearer_token_file = v.remote_write_bearer_token_file;
      });
  Add(app.add_option("--remote-write-basic-auth-user", v.remote_write_user,
                     "User for basic authentication at the receivers"),
      [&v](ServerConfig& c) { c.remote_write_user = v.remote_write_user; });
  Add(app.add_option("--remote-write-basic-auth-password-file", v.remote_write_password_file,
                     "File holding the basic-authentication password"),
      [&v](ServerConfig& c) { c.remote_write_password_file = v.remote_write_password_file; });
  Add(app.add_option("--remote-write-ca", v.remote_write_ca,
                     "CA bundle (PEM) to verify https receivers with, instead of the system's"),
      [&v](ServerConfig& c) { c.remote_write_ca = v.remote_write_ca; });
  Add(app.add_option("--export-include", v.export_include,
                     "PDH path pattern of counters to export (repeatable; default every counter: "
                     "\\*(*)\\* and \\*\\*)"),
      [&v](ServerConfig& c) { c.export_include = v.export_include; });
  Add(app.add_option(
          "--export-exclude", v.export_exclude,
          "PDH path pattern of counters not to export (repeatable), e.g. \\Thread(*)\\*"),
      [&v](ServerConfig& c) { c.export_exclude = v.export_exclude; });
  Add(app.add_option("--metrics-listen", v.metrics_listen,
                     "HOST:PORT to serve /metrics on (Prometheus text format)"),
      [&v](ServerConfig& c) { c.metrics_listen = v.metrics_listen; });
}

// The console, the collection policies and enrolled hosts' certificates.
void ServerFlags::AddServiceFlags(CLI::App& app) {
  ServerConfig& v = values_;
  Add(app.add_option("--http-listen", v.http_listen,
                     "HOST:PORT to serve the web console and its JSON API on (docs/http_api.md), "
                     "with the TLS certificate and read tokens of gRPC"),
      [&v](ServerConfig& c) { c.http_listen = v.http_listen; });
  Add(app.add_option("--policies", v.policies,
                     "Collection policies (TOML, docs/policies.md): which hosts collect what; "
                     "read again on SIGHUP and when it changes"),
      [&v](ServerConfig& c) { c.policies = v.policies; });
  Add(app.add_option("--rules", v.rules,
                     "Alerting rules (TOML, docs/alerts.md): conditions held over time, evaluated "
                     "as samples arrive; read again on SIGHUP and when it changes"),
      [&v](ServerConfig& c) { c.rules = v.rules; });
  Add(app.add_option("--alertmanager", v.alertmanager,
                     "Send the rules' alerts to this Prometheus Alertmanager (its base URL, e.g. "
                     "http://alertmanager:9093), which routes, silences and notifies"),
      [&v](ServerConfig& c) { c.alertmanager = v.alertmanager; });
  Add(app.add_option("--alertmanager-bearer-token-file", v.alertmanager_bearer_token_file,
                     "File holding the bearer token sent to Alertmanager"),
      [&v](ServerConfig& c) {
        c.alertmanager_bearer_token_file = v.alertmanager_bearer_token_file;
      });
  Add(app.add_option("--alertmanager-basic-auth-user", v.alertmanager_user,
                     "User for basic authentication at Alertmanager"),
      [&v](ServerConfig& c) { c.alertmanager_user = v.alertmanager_user; });
  Add(app.add_option("--alertmanager-basic-auth-password-file", v.alertmanager_password_file,
                     "File holding Alertmanager's basic-authentication password"),
      [&v](ServerConfig& c) { c.alertmanager_password_file = v.alertmanager_password_file; });
  Add(app.add_option(
          "--alertmanager-ca", v.alertmanager_ca,
          "CA bundle (PEM) to verify an https Alertmanager with, instead of the system's"),
      [&v](ServerConfig& c) { c.alertmanager_ca = v.alertmanager_ca; });
  Add(app.add_option("--certificate-lifetime", v.certificate_lifetime_seconds,
                     "How long enrolled hosts' certificates are valid (e.g. 90d, the default); "
                     "hosts renew them on their stream once two thirds have passed")
          ->transform(AgeSyntax())
          ->check(CLI::Range(int64_t{10}, int64_t{10} * 365 * 86400)),
      [&v](ServerConfig& c) { c.certificate_lifetime_seconds = v.certificate_lifetime_seconds; });
}

Result<ServerConfig> ServerFlags::Resolve(Env& env) const {
  ServerConfig config;
  if (!config_file_.empty()) {
    if (Status status = LoadServerConfigFile(env, config_file_, config); !status.ok()) {
      return status;
    }
  }
  for (const auto& [option, apply] : given_) {
    if (option->count() > 0) apply(config);
  }
  if (config.data.empty()) {
    return Status::InvalidArgument("give --data DIR, or data = \"DIR\" in the --config file");
  }
  // What `perfhive-server init` made, unless told otherwise.
  if (!config.insecure && config.tls_cert.empty() && config.tls_key.empty()) {
    ServerPkiPaths pki = PkiPaths(config.data);
    if (env.FileSize(pki.certificate).ok() && env.FileSize(pki.key).ok()) {
      config.tls_cert = pki.certificate;
      config.tls_key = pki.key;
    }
  }
  return config;
}

}  // namespace perfhive
