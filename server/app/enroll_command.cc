#include "server/app/enroll_command.h"

#include <chrono>
#include <ctime>

#include "server/app/server_config.h"
#include "server/enrollment/enrollment_registry.h"

namespace perfhive {
namespace {

using Clock = std::chrono::system_clock;

// UTC, to the second: "2026-12-03T10:00:00Z".
std::string Iso(Clock::time_point time) {
  std::time_t seconds = Clock::to_time_t(time);
  std::tm utc = {};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string Joined(const std::vector<std::string>& items) {
  std::string joined;
  for (const std::string& item : items) joined += (joined.empty() ? "" : ",") + item;
  return joined;
}

// `hosts list` and `readers list`: a line a certificate, under a heading whose first column is
// `holder` ("HOST", "READER").
void PrintCredentials(const std::vector<CredentialInfo>& credentials, const char* holder,
                      Clock::time_point now, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof line, "%-21s %-33s %-21s STATE\n", holder, "SERIAL", "EXPIRES");
  out << line;
  for (const CredentialInfo& credential : credentials) {
    std::string state = credential.revoked          ? "revoked " + Iso(*credential.revoked)
                        : credential.expires <= now ? "expired"
                                                    : "valid";
    if (!credential.targets.empty()) {
      state += " (polls";
      for (const std::string& target : credential.targets) state += " " + target;
      state += ")";
    }
    std::snprintf(line, sizeof line, "%-21s %-33s %-21s ", credential.host.c_str(),
                  credential.serial.c_str(), Iso(credential.expires).c_str());
    out << line << state << "\n";
  }
}

}  // namespace

EnrollCommands::EnrollCommands(CLI::App& app) {
  enroll_ = app.add_subcommand("enroll",
                               "Enrollment tokens, which agents exchange for a client "
                               "certificate (perfhive-agent run --enroll TOKEN)");
  enroll_->require_subcommand(1);
  create_ = enroll_->add_subcommand(
      "create", "Make an enrollment token and print it (shown once; kept only as a hash)");
  create_->add_option("--hosts", host_patterns_,
                      "Host name patterns the token may enroll ('*' wildcards; repeatable); with "
                      "--read, the names readers may log in as (default *)");
  create_->add_flag("--read", read_,
                    "A token for readers (perfhive login --enroll): their certificates may read "
                    "and write nothing");
  create_->add_option("--uses", uses_, "How many agents may enroll with it (default: any)")
      ->check(CLI::PositiveNumber);
  create_
      ->add_option("--expires", expires_seconds_,
                   "How long it may be used, e.g. 7d, 12h (default: ever)")
      ->transform(AgeSyntax());
  list_ = enroll_->add_subcommand("list", "The enrollment tokens, their uses left and expiry");
  revoke_ = enroll_->add_subcommand("revoke",
                                    "End an enrollment token; agents enrolled keep "
                                    "their certificates");
  revoke_->add_option("ID", id_, "The token's id (enroll list)")->required();

  hosts_ = app.add_subcommand(
      "hosts", "The credentials enrolled hosts hold (readers' are under readers, apart)");
  hosts_->require_subcommand(1);
  hosts_list_ = hosts_->add_subcommand("list", "Each host's certificates, expiry and state");
  hosts_revoke_ = hosts_->add_subcommand(
      "revoke",
      "End a host's credentials at once, its pollers' too: its open streams end within "
      "seconds and its reconnects are refused. Never a reader's (readers revoke)");
  hosts_revoke_->add_option("NAME", name_, "The host's name")->required();

  readers_ = app.add_subcommand(
      "readers",
      "The credentials readers hold (perfhive login --enroll, tokens of enroll create "
      "--read), apart from hosts' even under a host's name");
  readers_->require_subcommand(1);
  readers_list_ = readers_->add_subcommand("list", "Each reader's certificates, expiry and state");
  readers_revoke_ = readers_->add_subcommand(
      "revoke",
      "End a reader's credentials at once: its calls are refused. Never a host's (hosts "
      "revoke)");
  readers_revoke_->add_option("NAME", name_, "The reader's name (perfhive login --name)")
      ->required();
  for (CLI::App* command :
       {create_, list_, revoke_, hosts_list_, hosts_revoke_, readers_list_, readers_revoke_}) {
    command->add_option("--data", data_, "The server's data directory")->required();
  }
}

bool EnrollCommands::parsed() const {
  return enroll_->parsed() || hosts_->parsed() || readers_->parsed();
}

Status EnrollCommands::Run(std::ostream& out) const {
  Result<std::unique_ptr<EnrollmentRegistry>> registry = EnrollmentRegistry::Open(data_);
  if (!registry.ok()) return registry.status();
  Clock::time_point now = Clock::now();
  if (create_->parsed()) return CreateToken(**registry, now, out);
  if (list_->parsed()) return ListTokens(**registry, now, out);
  if (revoke_->parsed()) return RevokeToken(**registry, out);
  if (hosts_list_->parsed()) return ListHosts(**registry, now, out);
  if (hosts_revoke_->parsed()) return RevokeHost(**registry, now, out);
  if (readers_list_->parsed()) return ListReaders(**registry, now, out);
  return RevokeReader(**registry, now, out);
}

Status EnrollCommands::CreateToken(EnrollmentRegistry& registry, Clock::time_point now,
                                   std::ostream& out) const {
  EnrollmentTokenSpec spec;
  spec.host_patterns = host_patterns_;
  if (spec.host_patterns.empty()) {
    if (!read_) return Status::InvalidArgument("give --hosts PATTERN: the hosts it may enroll");
    spec.host_patterns = {"*"};
  }
  spec.read = read_;
  spec.uses = uses_;
  if (expires_seconds_ > 0) spec.valid_for = std::chrono::seconds(expires_seconds_);
  Result<std::pair<std::string, EnrollmentTokenInfo>> made = registry.CreateToken(spec, now);
  if (!made.ok()) return made.status();
  const EnrollmentTokenInfo& info = made->second;
  out << made->first << "\n"
      << "id " << info.id << ", hosts " << Joined(info.host_patterns) << ", "
      << (info.uses_left ? std::to_string(*info.uses_left) + " uses" : std::string("any uses"))
      << ", " << (info.expires ? "until " + Iso(*info.expires) : std::string("no expiry"))
      << (info.read ? ", for readers" : "") << "\nThe token is shown this once; "
      << (info.read ? "readers log in with perfhive login --enroll TOKEN --ca-sha256 FINGERPRINT"
                    : "agents enroll with perfhive-agent run --enroll TOKEN --ca-sha256 "
                      "FINGERPRINT")
      << ".\n";
  return Status();
}

Status EnrollCommands::ListTokens(EnrollmentRegistry& registry, Clock::time_point now,
                                  std::ostream& out) const {
  Result<std::vector<EnrollmentTokenInfo>> tokens = registry.ListTokens();
  if (!tokens.ok()) return tokens.status();
  out << "ID        HOSTS                 USES LEFT  EXPIRES               STATE\n";
  for (const EnrollmentTokenInfo& token : *tokens) {
    std::string state = token.revoked                              ? "revoked"
                        : token.expires && *token.expires <= now   ? "expired"
                        : token.uses_left && *token.uses_left <= 0 ? "used up"
                                                                   : "usable";
    char line[256];
    std::snprintf(line, sizeof line, "%-9s %-21s %-10s %-21s %s\n", token.id.c_str(),
                  Joined(token.host_patterns).c_str(),
                  token.uses_left ? std::to_string(*token.uses_left).c_str() : "any",
                  token.expires ? Iso(*token.expires).c_str() : "never", state.c_str());
    out << line;
  }
  return Status();
}

Status EnrollCommands::RevokeToken(EnrollmentRegistry& registry, std::ostream& out) const {
  if (Status status = registry.RevokeToken(id_); !status.ok()) return status;
  out << "revoked enrollment token " << id_ << "\n";
  return Status();
}

Status EnrollCommands::ListHosts(EnrollmentRegistry& registry, Clock::time_point now,
                                 std::ostream& out) const {
  Result<std::vector<CredentialInfo>> credentials = registry.ListHostCredentials();
  if (!credentials.ok()) return credentials.status();
  PrintCredentials(*credentials, "HOST", now, out);
  return Status();
}

Status EnrollCommands::RevokeHost(EnrollmentRegistry& registry, Clock::time_point now,
                                  std::ostream& out) const {
  Result<int> revoked = registry.RevokeHost(name_, now);
  if (!revoked.ok()) return revoked.status();
  out << "revoked " << *revoked << " credential" << (*revoked == 1 ? "" : "s") << " of host "
      << name_ << ": its open streams end within seconds and its reconnects are refused\n";
  return Status();
}

Status EnrollCommands::ListReaders(EnrollmentRegistry& registry, Clock::time_point now,
                                   std::ostream& out) const {
  Result<std::vector<CredentialInfo>> credentials = registry.ListReaderCredentials();
  if (!credentials.ok()) return credentials.status();
  PrintCredentials(*credentials, "READER", now, out);
  return Status();
}

Status EnrollCommands::RevokeReader(EnrollmentRegistry& registry, Clock::time_point now,
                                    std::ostream& out) const {
  Result<int> revoked = registry.RevokeReader(name_, now);
  if (!revoked.ok()) return revoked.status();
  out << "revoked " << *revoked << " credential" << (*revoked == 1 ? "" : "s") << " of reader "
      << name_ << ": its calls are refused from now on\n";
  return Status();
}

}  // namespace perfhive
