// SmbCredentials: the account an agentless poller logs on to a remote host with. Read from a
// file in smbclient's authentication-file format or from the environment, never taken from a
// command line (where `ps` shows it), and never put into a message: errors about a credentials
// file name the file and the line number, not the line.

#ifndef PERFHIVE_SOURCES_MSRRP_SMB_CREDENTIALS_H_
#define PERFHIVE_SOURCES_MSRRP_SMB_CREDENTIALS_H_

#include <string>
#include <string_view>

#include "base/status.h"

namespace perfhive {

struct SmbCredentials {
  std::string user;
  std::string password;
  std::string domain;  // empty: the server's own (a standalone host's local accounts)
};

// smbclient's --authentication-file format: lines `username = NAME`, `password = SECRET` and
// optionally `domain = DOMAIN`; blank lines and lines starting with '#' or ';' are ignored,
// spaces around '=' and at the ends are not part of the value. A `username` of the form
// DOMAIN\NAME sets the domain too. Both username and password are required.
Result<SmbCredentials> ParseCredentialsText(std::string_view text, std::string_view origin);
Result<SmbCredentials> ReadCredentialsFile(const std::string& path);

// PERFHIVE_SMB_USER, PERFHIVE_SMB_PASSWORD and optionally PERFHIVE_SMB_DOMAIN.
Result<SmbCredentials> CredentialsFromEnvironment();

}  // namespace perfhive

#endif  // PERFHIVE_SOURCES_MSRRP_SMB_CREDENTIALS_H_
