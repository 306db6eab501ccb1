#include "agent/agent_settings.h"

#include "config/settings_table.h"

namespace perfhive {
namespace {

constexpr std::string_view kSources[] = {"procfs", "hkpd", "replay"};

const AgentSetting kSettings[] = {
    {.key = "server",
     .flag = "--server",
     .value_name = "HOST:PORT",
     .help = "The perfhive-server to stream to (required).",
     .field = &AgentConfig::server},
    {.key = "ca",
     .flag = "--ca",
     .value_name = "FILE",
     .default_text = "the system's roots",
     .help = "PEM file of the CA that signed the server's certificate.",
     .field = &AgentConfig::ca_file},
    {.key = "ca_sha256",
     .flag = "--ca-sha256",
     .value_name = "sha256:HEX",
     .help = "Instead of a CA file: trust the server's CA by the fingerprint perfhive-server init "
             "printed.",
     .doc = "enrollment.md",
     .field = &AgentConfig::ca_sha256},
    {.key = "enroll",
     .flag = "--enroll",
     .value_name = "TOKEN",
     .help = "An enrollment token (perfhive-server enroll create), exchanged once for this host's "
             "client certificate, kept under the state directory's credentials folder, and then "
             "removed from the settings; needs the server's CA (ca_sha256 or ca).",
     .doc = "enrollment.md",
     .field = &AgentConfig::enroll_token},
    {.key = "enroll_file",
     .flag = "--enroll-file",
     .value_name = "FILE",
     .help = "A file holding the enrollment token (what configure writes), deleted once spent.",
     .doc = "enrollment.md",
     .field = &AgentConfig::enroll_file},
    {.key = "cert",
     .flag = "--cert",
     .value_name = "FILE",
     .help = "PEM client certificate, for mutual TLS.",
     .field = &AgentConfig::cert_file},
    {.key = "key",
     .flag = "--key",
     .value_name = "FILE",
     .help = "PEM private key of the client certificate.",
     .field = &AgentConfig::key_file},
    {.key = "insecure",
     .flag = "--insecure",
     .default_text = "false",
     .help = "Plain text, no TLS (tests and demos); a warning is logged.",
     .field = &AgentConfig::insecure},
    {.key = "token_file",
     .flag = "--token-file",
     .value_name = "FILE",
     .help = "File holding this agent's token, sent as gRPC metadata 'authorization: Bearer'.",
     .field = &AgentConfig::token_file},
    {.key = "host_name",
     .flag = "--host-name",
     .value_name = "NAME",
     .default_text = "the source's own",
     .help = "The name snapshots are filed under (required for replay).",
     .field = &AgentConfig::host_name},
    {.key = "source",
     .flag = "--source",
     .value_name = "procfs|hkpd|replay",
     .default_text = "procfs on Linux, hkpd on Windows",
     .help = "Where snapshots come from: /proc, the registry, or a replay folder.",
     .field = &AgentConfig::source,
     .choices = kSources},
    {.key = "replay",
     .flag = "--replay",
     .value_name = "DIR",
     .help = "For replay: the folder of snapshot files, titles.bin and optionally "
             "titles.<lang>.bin.",
     .field = &AgentConfig::replay_dir},
    {.key = "proc_root",
     .flag = "--proc-root",
     .value_name = "DIR",
     .default_text = "/proc",
     .help = "For procfs: where /proc is.",
     .field = &AgentConfig::proc_root},
    {.key = "sys_root",
     .flag = "--sys-root",
     .value_name = "DIR",
     .default_text = "/sys",
     .help = "For procfs: where /sys is.",
     .field = &AgentConfig::sys_root},
    {.key = "interval",
     .flag = "--interval",
     .value_name = "DURATION",
     .default_text = "10s",
     .help = "Default time between snapshots (10s, 100ms, 5m).",
     .field = &AgentConfig::interval,
     .given = &AgentConfig::interval_given},
    {.key = "query",
     .flag = "--query",
     .value_name = "SPEC",
     .default_text = "Global every interval",
     .help = "What to sample and how often, repeatable: Global@10s, Costly@5m, "
             "'Processor,Memory@1m' (objects by name or index); in the file, [[query]] tables.",
     .field = &AgentConfig::queries},
    {.key = "spool_dir",
     .flag = "--spool-dir",
     .value_name = "DIR",
     .default_text = "a folder per host under $STATE_DIRECTORY/spool, else "
                     "/var/lib/perfhive-agent/spool (%ProgramData%\\perfhive\\agent\\spool on "
                     "Windows)",
     .help = "Where unacknowledged snapshots wait (with targets: the folder holding each "
             "target's).",
     .field = &AgentConfig::spool_dir},
    {.key = "spool_max_bytes",
     .flag = "--spool-max-bytes",
     .value_name = "BYTES",
     .default_text = "1073741824 (1 GiB)",
     .help = "Spool size limit; the oldest snapshots are dropped beyond it.",
     .field = &AgentConfig::spool_max_bytes,
     .given = &AgentConfig::spool_max_bytes_given},
    {.key = "timeout",
     .flag = "--timeout",
     .value_name = "DURATION",
     .default_text = "none",
     .help = "Stop after this long; a replay then exits 1 if anything is unanswered.",
     .field = &AgentConfig::timeout},
    {.key = "labels",
     .flag = "--label",
     .value_name = "KEY=VALUE",
     .help = "This host's labels, sent in its Hello, repeatable: --label role=web --label "
             "site=ams; in the file, labels = { role = \"web\" }. The flags replace the file's; "
             "a policy's labels win key by key.",
     .doc = "policies.md#host-labels",
     .field = &AgentConfig::labels},
    {.key = "target",
     .flag = "--target",
     .value_name = "\\\\HOST[:PORT][=NAME]",
     .help = "A host without an agent to poll over the remote registry instead of this host, "
             "repeatable; =NAME files its snapshots under NAME (default: HOST); in the file, "
             "[[target]] tables. The flags replace the file's tables.",
     .doc = "agent.md#polling-hosts-without-an-agent",
     .field = &AgentConfig::targets},
    {.key = "credentials",
     .flag = "--credentials",
     .value_name = "FILE",
     .default_text = "PERFHIVE_SMB_USER, PERFHIVE_SMB_PASSWORD, PERFHIVE_SMB_DOMAIN",
     .help = "For targets and pollers on Linux: a file with username = NAME, password = SECRET "
             "and optionally domain = DOMAIN, for every polled host without its own.",
     .field = &AgentConfig::credentials_file},
    {.key = "poller_name",
     .flag = "--poller-name",
     .value_name = "NAME",
     .default_text = "this machine's name",
     .help = "For a poller (targets, poller): the name it enrolls as, for all the hosts it "
             "polls, and whose policy names its targets.",
     .doc = "enrollment.md#agentless-pollers",
     .field = &AgentConfig::poller_name},
    {.key = "poller",
     .flag = "--poller",
     .default_text = "false",
     .help = "Poll the hosts the server's policy names for this poller, following its changes "
             "without a restart; targets of its own hold while the policy names none.",
     .doc = "policies.md#pollers-targets-from-the-center",
     .field = &AgentConfig::poller},
    {.key = "max_concurrent_polls",
     .flag = "--max-concurrent-polls",
     .value_name = "N",
     .default_text = "8",
     .help = "Remote hosts read at the same time, at most.",
     .field = &AgentConfig::max_concurrent_polls,
     .max = 1024},
};

// Whether the field holds several values, each given by one flag.
bool Repeatable(const AgentSetting& setting) {
  return std::holds_alternative<std::vector<QuerySchedule> AgentConfig::*>(setting.field) ||
         std::holds_alternative<std::vector<RemoteHostConfig> AgentConfig::*>(setting.field) ||
         std::holds_alternative<query::HostLabels AgentConfig::*>(setting.field);
}

// The key as the file writes it.
std::string KeyText(const AgentSetting& setting) {
  std::string key(setting.key);
  if (std::holds_alternative<std::vector<QuerySchedule> AgentConfig::*>(setting.field) ||
      std::holds_alternative<std::vector<RemoteHostConfig> AgentConfig::*>(setting.field)) {
    return "[[" + key + "]]";
  }
  if (std::holds_alternative<query::HostLabels AgentConfig::*>(setting.field)) {
    return key + " = { KEY = \"VALUE\" }";
  }
  return key;
}

}  // namespace

std::span<const AgentSetting> AgentSettings() { return kSettings; }

const AgentSetting* FindAgentSetting(std::string_view key) {
  for (const AgentSetting& setting : kSettings) {
    if (setting.key == key) return &setting;
  }
  return nullptr;
}

std::string AgentSettingsMarkdown() {
  std::vector<SettingsTableRow> rows;
  for (const AgentSetting& setting : kSettings) {
    SettingsTableRow& row = rows.emplace_back();
    row.flag = std::string(setting.flag);
    if (!setting.value_name.empty()) row.flag += " " + std::string(setting.value_name);
    row.repeatable = Repeatable(setting);
    row.key = KeyText(setting);
    row.default_text = setting.default_text;
    row.meaning = std::string(setting.help);
    if (!setting.doc.empty()) {
      std::string page(setting.doc.substr(0, setting.doc.find('#')));
      row.meaning += " ([" + page + "](" + std::string(setting.doc) + "))";
    }
  }
  return SettingsMarkdownTable(rows);
}

}  // namespace perfhive
