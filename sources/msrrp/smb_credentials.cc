#include "sources/msrrp/smb_credentials.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace perfhive {
namespace {

std::string_view Trim(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

// DOMAIN\NAME in the user name, as smbclient accepts it.
void SplitDomain(SmbCredentials& credentials) {
  size_t slash = credentials.user.find('\\');
  if (slash == std::string::npos) return;
  if (credentials.domain.empty()) credentials.domain = credentials.user.substr(0, slash);
  credentials.user.erase(0, slash + 1);
}

}  // namespace

Result<SmbCredentials> ParseCredentialsText(std::string_view text, std::string_view origin) {
  SmbCredentials credentials;
  bool have_user = false;
  bool have_password = false;
  size_t line_number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++line_number;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    size_t equals = line.find('=');
    std::string where = std::string(origin) + " line " + std::to_string(line_number);
    if (equals == std::string_view::npos) {
      return Status::InvalidArgument(where + ": expected `key = value`");
    }
    std::string_view key = Trim(line.substr(0, equals));
    std::string value(Trim(line.substr(equals + 1)));
    if (key == "username") {
      credentials.user = std::move(value);
      have_user = true;
    } else if (key == "password") {
      credentials.password = std::move(value);
      have_password = true;
    } else if (key == "domain") {
      credentials.domain = std::move(value);
    } else {
      // The key is the user's own text, not a secret; the value is never shown.
      return Status::InvalidArgument(where + ": unknown key \"" + std::string(key) +
                                     "\" (expected username, password or domain)");
    }
  }
  if (!have_user || credentials.user.empty()) {
    return Status::InvalidArgument(std::string(origin) + ": no `username = NAME` line");
  }
  if (!have_password) {
    return Status::InvalidArgument(std::string(origin) + ": no `password = SECRET` line");
  }
  SplitDomain(credentials);
  return credentials;
}

Result<SmbCredentials> ReadCredentialsFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return Status::InvalidArgument("cannot read credentials file " + path + ": " +
                                   std::strerror(errno));
  }
  std::ostringstream text;
  text << file.rdbuf();
  return ParseCredentialsText(text.str(), path);
}

Result<SmbCredentials> CredentialsFromEnvironment() {
  const char* user = std::getenv("PERFHIVE_SMB_USER");
  const char* password = std::getenv("PERFHIVE_SMB_PASSWORD");
  const char* domain = std::getenv("PERFHIVE_SMB_DOMAIN");
  if (user == nullptr || *user == '\0' || password == nullptr) {
    return Status::InvalidArgument(
        "no credentials: give a credentials file (username = NAME, password = SECRET) or set "
        "PERFHIVE_SMB_USER and PERFHIVE_SMB_PASSWORD");
  }
  SmbCredentials credentials{.user = user, .password = password, .domain = domain ? domain : ""};
  SplitDomain(credentials);
  return credentials;
}

}  // namespace perfhive
