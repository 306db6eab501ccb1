#include "server/enrollment/token_table.h"

#include <toml++/toml.h>

#include <fstream>
#include <sstream>

#include "config/toml_settings.h"
#include "perfdata/case_folding.h"
#include "perfdata/counter_path.h"
#include "perfdata/name_pattern.h"

namespace perfhive {
namespace {

constexpr std::string_view kBearer = "Bearer ";

std::span<const uint8_t> BytesOf(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

Result<Sha256Digest> ParseHexDigest(std::string_view hex) {
  Sha256Digest digest{};
  if (hex.size() != 64) return Status::InvalidArgument("secret_sha256 is not 64 hex digits");
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < digest.size(); ++i) {
    int high = nibble(hex[2 * i]);
    int low = nibble(hex[2 * i + 1]);
    if (high < 0 || low < 0) return Status::InvalidArgument("secret_sha256 is not hexadecimal");
    digest[i] = static_cast<uint8_t>(high << 4 | low);
  }
  return digest;
}

bool EqualInConstantTime(const Sha256Digest& a, const Sha256Digest& b) {
  uint8_t difference = 0;
  for (size_t i = 0; i < a.size(); ++i) difference |= a[i] ^ b[i];
  return difference == 0;
}

}  // namespace

bool Principal::MayWriteAs(std::string_view host) const {
  for (const std::string& pattern : write_hosts) {
    if (MatchesPattern(pattern, host)) return true;
  }
  return false;
}

bool Principal::MayActAsPoller(std::string_view poller) const {
  // A certificate speaks for the one poller it was issued to, not for the hosts it polls.
  if (!certificate_serial.empty()) return FoldCase(enrolled_host) == FoldCase(poller);
  return MayWriteAs(poller);
}

TokenTable TokenTable::AllowAll() {
  TokenTable table;
  table.allow_all_ = true;
  return table;
}

Result<TokenTable> TokenTable::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot read the token file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str(), path);
}

Result<TokenTable> TokenTable::Parse(std::string_view text, const std::string& origin) {
  Result<toml::table> file = ParseTomlSettings(text, origin);
  if (!file.ok()) return file.status();
  const toml::table& document = *file;
  const toml::array* tokens = document["token"].as_array();
  if (tokens == nullptr || tokens->empty()) {
    return Status::InvalidArgument(origin + ": no [[token]] entries");
  }
  TokenTable table;
  for (size_t i = 0; i < tokens->size(); ++i) {
    std::string where = origin + ": token " + std::to_string(i + 1);
    const toml::table* entry = (*tokens)[i].as_table();
    if (entry == nullptr) return Status::InvalidArgument(where + " is not a table");
    Entry parsed;
    parsed.principal.name =
        (*entry)["name"].value_or(std::string("token ") + std::to_string(i + 1));
    where += " (" + parsed.principal.name + ")";
    std::optional<std::string> secret = (*entry)["secret"].value<std::string>();
    std::optional<std::string> secret_sha256 = (*entry)["secret_sha256"].value<std::string>();
    if (secret.has_value() == secret_sha256.has_value()) {
      return Status::InvalidArgument(where + ": give exactly one of secret and secret_sha256");
    }
    if (secret) {
      if (secret->size() < 16) {
        return Status::InvalidArgument(where + ": the secret is shorter than 16 characters");
      }
      parsed.secret_sha256 = Sha256(BytesOf(*secret));
    } else {
      Result<Sha256Digest> digest = ParseHexDigest(*secret_sha256);
      if (!digest.ok()) return digest.status().Prefixed(where + ": ");
      parsed.secret_sha256 = *digest;
    }
    if (const toml::node* write = entry->get("write")) {
      const toml::array* hosts = write->as_array();
      if (hosts == nullptr) return Status::InvalidArgument(where + ": write is not a list");
      for (const toml::node& host : *hosts) {
        std::optional<std::string> pattern = host.value<std::string>();
        if (!pattern || pattern->empty()) {
          return Status::InvalidArgument(where + ": write holds something not a host pattern");
        }
        parsed.principal.write_hosts.push_back(*pattern);
      }
    }
    parsed.principal.read = (*entry)["read"].value_or(false);
    table.tokens_.push_back(std::move(parsed));
  }
  return table;
}

Result<Principal> TokenTable::Authenticate(std::string_view authorization) const {
  if (allow_all_) {
    return Principal{.name = "anyone",
                     .write_hosts = {"*"},
                     .read = true,
                     .certificate_serial = "",
                     .enrolled_host = ""};
  }
  if (authorization.empty()) {
    return Status(StatusCode::kUnauthenticated,
                  "no token and no enrolled client certificate: pass a token with --token-file "
                  "(sent as authorization: Bearer), or enroll (--enroll)");
  }
  if (!authorization.starts_with(kBearer)) {
    return Status(StatusCode::kUnauthenticated, "the authorization header is not a Bearer token");
  }
  Sha256Digest presented = Sha256(BytesOf(authorization.substr(kBearer.size())));
  for (const Entry& entry : tokens_) {
    if (EqualInConstantTime(entry.secret_sha256, presented)) return entry.principal;
  }
  return Status(StatusCode::kUnauthenticated, "unknown token");
}

}  // namespace perfhive
