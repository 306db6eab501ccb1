#include "cli/login_command.h"

#include <toml++/toml.h>
#include <unistd.h>

#include <sstream>

#include "config/toml_settings.h"
#include "pki/enrollment_client.h"

namespace perfhive::cli {
namespace {

std::string ThisHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "cli";
  return name;
}

// Folder of the CLI's files: the config file's.
std::string ConfigFolder(const std::string& config_file) {
  return config_file.substr(0, config_file.find_last_of('/'));
}

}  // namespace

Status RunLogin(const ServerConnection& server, const LoginOptions& options, std::ostream& out) {
  if (options.enroll_token.empty()) {
    return Status::InvalidArgument(
        "give --enroll TOKEN: a reader's enrollment token (perfhive-server enroll create --read)");
  }
  std::string config_file = CliConfigFile();
  if (config_file.empty()) {
    return Status::InvalidArgument(
        "no home folder for the CLI's settings: set HOME or PERFHIVE_CONFIG");
  }
  std::string name = options.name.empty() ? "reader-" + ThisHostName() : options.name;
  Result<KeyAndRequest> made = MakeKeyAndRequest(name);
  if (!made.ok()) return made.status();
  Result<EnrolledCredential> enrolled =
      RequestCertificate(server.channel(), options.enroll_token, name, *made);
  if (!enrolled.ok()) return enrolled.status().Prefixed("login refused: ");
  Env& env = Env::Default();
  std::string dir = ConfigFolder(config_file) + "/credential";
  if (Status saved = SaveCredential(env, dir, *enrolled); !saved.ok()) return saved;

  // The config file, its other settings kept: the server, its CA by fingerprint, the
  // credential; a token file it named would be sent instead of the certificate, so it goes.
  toml::table settings;
  if (Result<std::string> text = ReadTextFile(env, config_file); text.ok()) {
    Result<toml::table> parsed = ParseTomlSettings(*text, config_file);
    if (!parsed.ok()) return parsed.status();
    settings = std::move(parsed).value();
  }
  settings.insert_or_assign("server", server.address());
  if (!server.ca_sha256().empty()) settings.insert_or_assign("ca_sha256", server.ca_sha256());
  settings.insert_or_assign("cert", dir + "/certificate.pem");
  settings.insert_or_assign("key", dir + "/key.pem");
  settings.erase("token_file");
  std::ostringstream text;
  text << settings << "\n";
  if (Status written = env.WriteFileAtomically(config_file, TextBytes(text.str())); !written.ok()) {
    return written;
  }
  out << "logged in to " << server.address() << " as " << name << "; the credential is in " << dir
      << ", and " << config_file << " names it: perfhive commands need no flag now\n";
  return Status();
}

}  // namespace perfhive::cli
