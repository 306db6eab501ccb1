// `perfhive login --enroll TOKEN`: a reader's credential, the CLI's counterpart of an agent's
// enrollment. With an enrollment token made by `perfhive-server enroll create --read`, the CLI
// makes a key, receives a certificate that may read (and write nothing), keeps both under
// ~/.config/perfhive/credential and records the server, its CA fingerprint and the credential in
// the CLI's config file, so that later commands need no flag. docs/enrollment.md.

#ifndef PERFHIVE_CLI_LOGIN_COMMAND_H_
#define PERFHIVE_CLI_LOGIN_COMMAND_H_

#include <ostream>
#include <string>

#include "base/status.h"
#include "cli/server_connection.h"

namespace perfhive::cli {

struct LoginOptions {
  std::string enroll_token;
  std::string name;  // the reader's name, the certificate's CN; default reader-<this host>
};

Status RunLogin(const ServerConnection& server, const LoginOptions& options, std::ostream& out);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_LOGIN_COMMAND_H_
