#include "agent/configure_command.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "agent/agent_config.h"
#include "agent/agent_settings.h"
#include "agent/config_update.h"
#include "config/duration.h"
#include "perfdata/host_name.h"
#include "pki/fingerprint.h"

namespace perfhive {
namespace {

// The C runtime reads \" as a quote, so on an msiexec command line a value ending with a
// backslash takes the quote that should close it, and the next option lands inside it.
Status CheckQuoting(std::string_view option, const std::string& value) {
  if (value.find('"') == std::string::npos) return Status();
  return Status::InvalidArgument(std::string(option) +
                                 " holds a double quote; a value that ends with a backslash "
                                 "takes the quote after it on a command line: leave it out");
}

std::string FolderOf(const std::string& file) {
  size_t slash = file.find_last_of("/\\");
  return slash == std::string::npos ? "." : file.substr(0, slash);
}

// `name` in the folder of `file`, with the separator `file` uses.
std::string BesideFile(const std::string& file, std::string_view name) {
  size_t slash = file.find_last_of("/\\");
  if (slash == std::string::npos) return std::string(name);
  return file.substr(0, slash + 1) + std::string(name);
}

// The loopback addresses perfhive-server accepts for --insecure.
bool IsLoopbackServer(std::string_view server) {
  std::string_view host = server.substr(0, server.rfind(':'));
  return host == "localhost" || host.starts_with("127.") || host == "[::1]" || host == "::1";
}

// The items of a ';'-separated list, empty ones left out.
std::vector<std::string_view> SplitList(std::string_view text) {
  std::vector<std::string_view> items;
  while (!text.empty()) {
    size_t semicolon = text.find(';');
    std::string_view item = text.substr(0, semicolon);
    if (!item.empty()) items.push_back(item);
    text = semicolon == std::string_view::npos ? std::string_view() : text.substr(semicolon + 1);
  }
  return items;
}

// What the options ask for, but for the token and the CA, whose files are decided later.
Result<ConfigUpdate> UpdateFromOptions(const ConfigureOptions& options) {
  ConfigUpdate update;
  auto text = [](const std::string& value) {
    return value.empty() ? std::nullopt : std::optional<std::string>(value);
  };
  update.server = text(options.server);
  if (!options.ca_sha256.empty()) {
    if (!options.ca_file.empty()) {
      return Status::InvalidArgument(
          "give the server's CA as a file (CA_FILE, --ca) or as a fingerprint (CA_SHA256, "
          "--ca-sha256), not both");
    }
    Result<std::string> pin = ParseSha256Fingerprint(options.ca_sha256);
    if (!pin.ok()) return pin.status();
    update.ca_sha256 = FormatSha256Fingerprint(*pin);
    update.ca_file = "";
  }
  update.source = text(options.source);
  update.replay_dir = text(options.replay_dir);
  if (!options.host_name.empty()) {
    if (Status status = CheckHostName(options.host_name); !status.ok()) {
      return status.Prefixed("host name: ");
    }
    update.host_name = options.host_name;
  }
  if (update.source) {
    std::span<const std::string_view> sources = FindAgentSetting("source")->choices;
    if (std::find(sources.begin(), sources.end(), *update.source) == sources.end()) {
      std::string expected;
      for (size_t i = 0; i < sources.size(); ++i) {
        expected += (i == 0                    ? ""
                     : i + 1 == sources.size() ? " or "
                                               : ", ") +
                    std::string(sources[i]);
      }
      return Status::InvalidArgument("source " + options.source + ": expected " + expected);
    }
  }
  if (!options.interval.empty()) {
    Result<std::chrono::milliseconds> interval = ParseDuration(options.interval);
    if (!interval.ok()) return interval.status().Prefixed("interval: ");
    update.interval = *interval;
  }
  if (!options.queries.empty()) {
    update.queries.emplace();
    for (std::string_view item : SplitList(options.queries)) {
      Result<QuerySchedule> query = ParseQueryFlag(item);
      if (!query.ok()) return query.status().Prefixed("queries: ");
      update.queries->push_back(std::move(query).value());
    }
    if (update.queries->empty()) {
      return Status::InvalidArgument("queries " + options.queries +
                                     ": expected queries separated by ';', e.g. "
                                     "Global@10s;Costly@5m");
    }
  }
  if (!options.targets.empty()) {
    update.targets.emplace();
    for (std::string_view item : SplitList(options.targets)) {
      Result<RemoteHostConfig> target = ParseTargetFlag(item);
      if (!target.ok()) return target.status();
      update.targets->push_back(std::move(target).value());
    }
    if (update.targets->empty()) {
      return Status::InvalidArgument("targets " + options.targets +
                                     ": expected hosts separated by ';', e.g. "
                                     "\\\\web01;\\\\10.0.0.7=DB01");
    }
  }
  if (!options.labels.empty()) {
    std::vector<std::string> labels;
    for (std::string_view item : SplitList(options.labels)) labels.emplace_back(item);
    Result<query::HostLabels> parsed = ParseLabelFlags(labels);
    if (!parsed.ok()) return parsed.status().Prefixed("labels: ");
    if (parsed->empty()) {
      return Status::InvalidArgument("labels " + options.labels +
                                     ": expected labels separated by ';', e.g. role=web;site=ams");
    }
    update.labels = std::move(parsed).value();
  }
  if (options.insecure == "1" || options.insecure == "true") {
    update.insecure = true;
  } else if (options.insecure == "0" || options.insecure == "false") {
    update.insecure = false;
  } else if (!options.insecure.empty()) {
    return Status::InvalidArgument("insecure " + options.insecure + ": expected 1 or 0");
  }
  return update;
}

// What the agent would refuse at its start, or should: without TLS, snapshots and the token
// cross the network readable by anyone on the way, so plain text is for this host only.
Status CheckResult(const AgentConfig& config, const std::string& file) {
  if (config.server.empty()) {
    return Status::InvalidArgument(file +
                                   " names no server: give one (SERVER=HOST:PORT to the "
                                   "MSI, --server HOST:PORT to configure)");
  }
  if (!config.insecure) return Status();
  if (!IsLoopbackServer(config.server)) {
    return Status::InvalidArgument(
        "insecure (plain text, the server unchecked) is only for a server on this host "
        "(127.0.0.1, localhost, [::1]), not " +
        config.server + ": give the server's CA for TLS instead (CA_FILE, --ca) and insecure 0");
  }
  if (!config.ca_file.empty() || !config.ca_sha256.empty() || !config.cert_file.empty() ||
      !config.key_file.empty()) {
    return Status::InvalidArgument(
        "insecure (plain text) cannot go with ca, ca_sha256, cert or key (TLS) in " + file +
        ": give insecure 0 for TLS, or remove them");
  }
  return Status();
}

std::vector<uint8_t> Bytes(std::string_view text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

}  // namespace

Result<ConfigureOutcome> Configure(Env& env, const ConfigureOptions& options) {
  const std::pair<std::string_view, const std::string*> given[] = {
      {"file", &options.file},           {"server", &options.server},
      {"token", &options.token},         {"ca", &options.ca_file},
      {"ca_sha256", &options.ca_sha256}, {"enroll", &options.enroll_token},
      {"host_name", &options.host_name}, {"query", &options.queries},
      {"interval", &options.interval},   {"target", &options.targets},
      {"insecure", &options.insecure},   {"source", &options.source},
      {"replay", &options.replay_dir},   {"labels", &options.labels},
  };
  ConfigureOutcome outcome;
  for (const auto& [name, value] : given) {
    if (Status status = CheckQuoting(name, *value); !status.ok()) return status;
    if (name != "file" && !value->empty()) outcome.changes.emplace_back(name);
  }
  if (options.file.empty()) return Status::InvalidArgument("configure needs the config file");
  Result<ConfigUpdate> update = UpdateFromOptions(options);
  if (!update.ok()) return update.status();

  std::string old_text;
  if (Result<std::vector<uint8_t>> old = env.ReadFile(options.file); old.ok()) {
    old_text.assign(old->begin(), old->end());
  } else if (old.status().code() != StatusCode::kNotFound) {
    return old.status();
  }
  // The file as it is must be one the agent reads: its token_file is where a new token goes.
  AgentConfig before;
  if (Status status = LoadConfigText(old_text, options.file, before); !status.ok()) {
    return status;
  }
  // Given nothing (an upgrade run without properties), the file stays byte for byte as it is.
  if (outcome.changes.empty()) {
    if (Status status = CheckResult(before, options.file); !status.ok()) return status;
    return outcome;
  }
  // Files beside agent.toml, each with the bytes it is to hold.
  std::vector<std::tuple<std::string, std::vector<uint8_t>, bool>> files;
  if (!options.token.empty()) {
    for (char c : options.token) {
      if (c <= ' ' || c > '~') {
        return Status::InvalidArgument("the token must be printable ASCII without spaces");
      }
    }
    update->token_file =
        before.token_file.empty() ? BesideFile(options.file, "agent.token") : before.token_file;
    files.emplace_back(*update->token_file, Bytes(options.token + "\n"), true);
  }
  if (!options.enroll_token.empty()) {
    for (char c : options.enroll_token) {
      if (c <= ' ' || c > '~') {
        return Status::InvalidArgument(
            "the enrollment token must be printable ASCII without spaces");
      }
    }
    update->enroll_file = BesideFile(options.file, "enroll.token");
    update->enroll_token = "";
    files.emplace_back(*update->enroll_file, Bytes(options.enroll_token + "\n"), true);
  }
  if (!options.ca_file.empty()) {
    // A copy: the CA given may sit on the installation share, gone by the next restart.
    Result<std::vector<uint8_t>> ca = env.ReadFile(options.ca_file);
    if (!ca.ok()) return ca.status().Prefixed("the CA: ");
    if (std::string_view(reinterpret_cast<const char*>(ca->data()), ca->size())
            .find("-----BEGIN CERTIFICATE-----") == std::string_view::npos) {
      return Status::InvalidArgument("the CA " + options.ca_file +
                                     " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
    }
    update->ca_file = BesideFile(options.file, "ca.pem");
    update->ca_sha256 = "";
    files.emplace_back(*update->ca_file, std::move(ca).value(), false);
  }
  Result<std::string> text = ApplyConfigUpdate(old_text, options.file, *update);
  if (!text.ok()) return text.status();
  AgentConfig after;
  if (Status status = LoadConfigText(*text, options.file, after); !status.ok()) return status;
  if (Status status = CheckResult(after, options.file); !status.ok()) return status;
  files.emplace_back(options.file, Bytes(*text), false);

  if (Status status = env.CreateDirectories(FolderOf(options.file)); !status.ok()) return status;
  for (const auto& [path, bytes, secret] : files) {
    Result<std::vector<uint8_t>> old = env.ReadFile(path);
    if (!old.ok() || *old != bytes) outcome.changed = true;
    // A secret is written even when unchanged, so that its file has the secret's permissions.
    Status status =
        secret ? env.WriteSecretFileAtomically(path, bytes) : env.WriteFileAtomically(path, bytes);
    if (!status.ok()) return status;
  }
  return outcome;
}

}  // namespace perfhive
