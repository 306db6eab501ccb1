#include "server/app/server_settings.h"

#include "config/settings_table.h"

namespace perfhive {
namespace {

constexpr int64_t kTenYears = int64_t{10} * 365 * 86400;

const ServerSetting kSettings[] = {
    // Where it listens and keeps its data, and who may call it.
    {.key = "listen",
     .value_name = "HOST:PORT",
     .default_text = "127.0.0.1:7470",
     .help = "Where agents and the CLI call it over gRPC (port 0: any free port).",
     .field = &ServerConfig::listen},
    {.key = "data",
     .value_name = "DIR",
     .help = "The folder of the embedded store (required).",
     .field = &ServerConfig::data},
    {.key = "tls_cert",
     .value_name = "FILE",
     .default_text = "the one perfhive-server init made in the data folder, if any",
     .help = "The server's certificate (PEM).",
     .field = &ServerConfig::tls_cert},
    {.key = "tls_key",
     .value_name = "FILE",
     .default_text = "the one perfhive-server init made in the data folder, if any",
     .help = "The server's private key (PEM).",
     .field = &ServerConfig::tls_key},
    {.key = "client_ca",
     .value_name = "FILE",
     .help = "CA (PEM) that client certificates must chain to: mutual TLS.",
     .field = &ServerConfig::client_ca},
    {.key = "tokens",
     .value_name = "FILE",
     .help = "Token file (TOML): who may write as which hosts, who may read.",
     .field = &ServerConfig::tokens},
    {.key = "insecure",
     .default_text = "false",
     .help = "Plain text without tokens, on a loopback address only (demos and tests).",
     .field = &ServerConfig::insecure},
    // What the store and the ingest streams take, and how long the store keeps it.
    {.key = "compact_groups",
     .default_text = "true",
     .help = "Rewrite each closed group of snapshots as one columnar block, about a third of the "
             "size, in a pass beside the writer (docs/store_format.md).",
     .field = &ServerConfig::compact_groups},
    {.key = "max_snapshot_bytes",
     .value_name = "SIZE",
     .default_text = "64MiB",
     .help = "Largest raw snapshot accepted; larger ones are refused.",
     .field = &ServerConfig::max_snapshot_bytes,
     .syntax = QuantitySyntax::kSize,
     .min = 1},
    {.key = "max_query_bytes",
     .value_name = "SIZE",
     .default_text = "1GiB",
     .help = "Most bytes of samples one query may restore, estimated before it reads them; a "
             "larger query is refused saying how to narrow it.",
     .field = &ServerConfig::max_query_bytes,
     .syntax = QuantitySyntax::kSize,
     .min = 1},
    {.key = "max_snapshots_per_second",
     .value_name = "RATE",
     .default_text = "50",
     .help = "Per stream; a faster sender is read more slowly.",
     .field = &ServerConfig::max_snapshots_per_second},
    {.key = "max_ingest_bytes_in_flight",
     .value_name = "SIZE",
     .default_text = "256MiB",
     .help = "Raw snapshot bytes being made durable, over all streams: past it a stream with one "
             "in flight is read no further until it completes.",
     .field = &ServerConfig::max_ingest_bytes_in_flight,
     .syntax = QuantitySyntax::kSize,
     .min = 1},
    {.key = "retention_age",
     .value_name = "AGE",
     .default_text = "keep",
     .help = "Delete snapshots older than this (e.g. 30d, 12h).",
     .field = &ServerConfig::retention_age_seconds,
     .syntax = QuantitySyntax::kAge},
    {.key = "retention_size",
     .value_name = "SIZE",
     .default_text = "no limit",
     .help = "Delete the oldest snapshots while the store holds more (e.g. 50GB).",
     .field = &ServerConfig::retention_bytes,
     .syntax = QuantitySyntax::kSize},
    // What leaves for Prometheus-compatible engines.
    {.key = "remote_write",
     .value_name = "URL",
     .help = "Push computed values to this Prometheus remote-write URL (repeatable), e.g. "
             "http://prometheus:9090/api/v1/write.",
     .field = &ServerConfig::remote_write},
    {.key = "remote_write_bearer_token_file",
     .value_name = "FILE",
     .help = "File holding the bearer token sent to the receivers.",
     .field = &ServerConfig::remote_write_bearer_token_file},
    {.key = "remote_write_basic_auth_user",
     .value_name = "USER",
     .help = "User for basic authentication at the receivers.",
     .field = &ServerConfig::remote_write_user},
    {.key = "remote_write_basic_auth_password_file",
     .value_name = "FILE",
     .help = "File holding the basic-authentication password.",
     .field = &ServerConfig::remote_write_password_file},
    {.key = "remote_write_ca",
     .value_name = "FILE",
     .default_text = "the system's",
     .help = "CA bundle (PEM) to verify https receivers with.",
     .field = &ServerConfig::remote_write_ca},
    {.key = "remote_write_backfill",
     .value_name = "AGE",
     .default_text = "1h",
     .help = "How far back a host the receivers never had is sent from: a default Prometheus "
             "refuses samples older than an hour; one with an out-of-order window (or "
             "VictoriaMetrics) can be filled with the store's history, e.g. 30d.",
     .field = &ServerConfig::remote_write_backfill_seconds,
     .syntax = QuantitySyntax::kAge,
     .min = 1},
    {.key = "export_include",
     .value_name = "PATTERN",
     .default_text = "every counter: \\*(*)\\* and \\*\\*",
     .help = "PDH path pattern of counters to export (repeatable).",
     .field = &ServerConfig::export_include},
    {.key = "export_exclude",
     .value_name = "PATTERN",
     .help = "PDH path pattern of counters not to export (repeatable), e.g. \\Thread(*)\\*.",
     .field = &ServerConfig::export_exclude},
    {.key = "metrics_listen",
     .value_name = "HOST:PORT",
     .default_text = "not served",
     .help = "Where to serve /metrics (Prometheus text format).",
     .field = &ServerConfig::metrics_listen},
    // The console, the collection policies, the alerts and enrolled hosts' certificates.
    {.key = "http_listen",
     .value_name = "HOST:PORT",
     .default_text = "not served",
     .help = "Where to serve the web console and its JSON API (docs/http_api.md), with the TLS "
             "certificate and read tokens of gRPC.",
     .field = &ServerConfig::http_listen},
    {.key = "policies",
     .value_name = "FILE",
     .help = "Collection policies (TOML, docs/policies.md): which hosts collect what; read again "
             "on SIGHUP and when it changes.",
     .field = &ServerConfig::policies},
    {.key = "rules",
     .value_name = "FILE",
     .help = "Alerting rules (TOML, docs/alerts.md): conditions held over time, evaluated as "
             "samples arrive; read again on SIGHUP and when it changes.",
     .field = &ServerConfig::rules},
    {.key = "alertmanager",
     .value_name = "URL",
     .default_text = "alerts are only listed",
     .help = "Send the rules' alerts to this Prometheus Alertmanager (its base URL, e.g. "
             "http://alertmanager:9093), which routes, silences and notifies.",
     .field = &ServerConfig::alertmanager},
    {.key = "alertmanager_bearer_token_file",
     .value_name = "FILE",
     .help = "File holding the bearer token sent to Alertmanager.",
     .field = &ServerConfig::alertmanager_bearer_token_file},
    {.key = "alertmanager_basic_auth_user",
     .value_name = "USER",
     .help = "User for basic authentication at Alertmanager.",
     .field = &ServerConfig::alertmanager_user},
    {.key = "alertmanager_basic_auth_password_file",
     .value_name = "FILE",
     .help = "File holding Alertmanager's basic-authentication password.",
     .field = &ServerConfig::alertmanager_password_file},
    {.key = "alertmanager_ca",
     .value_name = "FILE",
     .default_text = "the system's",
     .help = "CA bundle (PEM) to verify an https Alertmanager with.",
     .field = &ServerConfig::alertmanager_ca},
    {.key = "certificate_lifetime",
     .value_name = "AGE",
     .default_text = "90d",
     .help = "How long enrolled hosts' certificates are valid (10s to 10 years); hosts renew "
             "them on their stream once two thirds have passed.",
     .field = &ServerConfig::certificate_lifetime_seconds,
     .syntax = QuantitySyntax::kAge,
     .min = 10,
     .max = kTenYears},
};

}  // namespace

std::span<const ServerSetting> ServerSettings() { return kSettings; }

const ServerSetting* FindServerSetting(std::string_view key) {
  for (const ServerSetting& setting : kSettings) {
    if (setting.key == key) return &setting;
  }
  return nullptr;
}

std::string ServerSettingFlag(const ServerSetting& setting) {
  std::string flag = "--" + std::string(setting.key);
  for (char& c : flag) {
    if (c == '_') c = '-';
  }
  return flag;
}

std::string ServerSettingsMarkdown() {
  std::vector<SettingsTableRow> rows;
  for (const ServerSetting& setting : kSettings) {
    SettingsTableRow& row = rows.emplace_back();
    row.flag = ServerSettingFlag(setting);
    if (!setting.value_name.empty()) row.flag += " " + std::string(setting.value_name);
    row.repeatable =
        std::holds_alternative<std::vector<std::string> ServerConfig::*>(setting.field);
    row.key = std::string(setting.key);
    row.default_text = setting.default_text;
    row.meaning = std::string(setting.help);
  }
  return SettingsMarkdownTable(rows);
}

}  // namespace perfhive
