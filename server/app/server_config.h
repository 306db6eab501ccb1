// ServerConfig: everything perfhive-server is told, from its config file (TOML) and its flags;
// flags given on the command line win over the file. server_settings.h describes each setting
// once: its key, its flag (the key with dashes), its syntax (sizes "64MiB" or a number of bytes,
// ages "30d"), its default and its limits. Unknown keys are errors naming the file and line, so a
// typo never leaves a default in force. packaging/config/server.toml shows them all.

#ifndef PERFHIVE_SERVER_APP_SERVER_CONFIG_H_
#define PERFHIVE_SERVER_APP_SERVER_CONFIG_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "port/env.h"

namespace perfhive {

struct ServerSetting;  // server_settings.h

struct ServerConfig {
  std::string listen = "127.0.0.1:7470";  // HOST:PORT; port 0: any free port
  std::string data;                       // the embedded store's directory (required)
  std::string tls_cert;
  std::string tls_key;
  std::string client_ca;       // set: mutual TLS, client certificates must chain to it
  std::string tokens;          // the token table (server/enrollment/token_table.h)
  bool insecure = false;       // plain text without tokens, on loopback only
  bool compact_groups = true;  // closed groups rewritten as columnar blocks by a pass of their own
  uint64_t max_snapshot_bytes = 64 << 20;
  // Bytes of samples one read may restore, by its estimate (query::QueryOptions::max_bytes).
  uint64_t max_query_bytes = uint64_t{1} << 30;
  double max_snapshots_per_second = 50;  // per stream
  // Raw snapshot bytes being made durable, over all streams (IngestLimits::max_bytes_in_flight).
  uint64_t max_ingest_bytes_in_flight = uint64_t{256} << 20;
  int64_t retention_age_seconds = 0;      // 0: keep
  int64_t retention_bytes = 0;            // 0: no limit
  std::vector<std::string> remote_write;  // Prometheus remote-write URLs
  std::string remote_write_bearer_token_file;
  std::string remote_write_user;
  std::string remote_write_password_file;
  std::string remote_write_ca;
  // How far back a host the receivers never had is exported from (PrometheusExporterOptions).
  int64_t remote_write_backfill_seconds = 3600;
  std::vector<std::string> export_include;  // PDH path patterns
  std::vector<std::string> export_exclude;
  std::string metrics_listen;  // HOST:PORT of /metrics; empty: not served
  std::string http_listen;     // HOST:PORT of the web console and its JSON API; empty: none
  std::string policies;        // collection policies (server/policies/policy_book.h); empty: none
  std::string rules;           // alerting rules (server/alerts/rule_book.h); empty: none
  std::string alertmanager;    // Alertmanager's base URL; empty: alerts are only listed
  std::string alertmanager_bearer_token_file;
  std::string alertmanager_user;
  std::string alertmanager_password_file;
  std::string alertmanager_ca;
  int64_t certificate_lifetime_seconds = 90 * 86400;  // of enrolled hosts' certificates
};

// Ages as flags and the file write them: "30d", "12h", "90m", "3600s" or a number of seconds.
CLI::Validator AgeSyntax();

// Overlays the settings of a TOML file onto `config`; lists replace the lists `config` holds.
Status LoadServerConfigFile(Env& env, const std::string& path, ServerConfig& config);
// The same, from the text of a file (`origin` names it in errors).
Status LoadServerConfigText(std::string_view text, std::string_view origin, ServerConfig& config);

// perfhive-server's command line: --config FILE and one flag per setting, kept apart from the
// settings so that the flags given win over the file and the flags not given leave it alone.
class ServerFlags {
 public:
  // Adds the flags to `app`, which must outlive this object's Resolve.
  explicit ServerFlags(CLI::App& app);
  ServerFlags(const ServerFlags&) = delete;
  ServerFlags& operator=(const ServerFlags&) = delete;

  // After `app` parsed the command line: the defaults, the config file's settings over them,
  // the flags given over those. An error names the file and line, or the missing setting.
  Result<ServerConfig> Resolve(Env& env) const;

 private:
  std::string config_file_;
  ServerConfig values_;  // what the flags parsed into
  std::vector<std::pair<CLI::Option*, const ServerSetting*>> given_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_APP_SERVER_CONFIG_H_
