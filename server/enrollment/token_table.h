// TokenTable: who may talk to the server. `perfhive-server --tokens FILE` lists bearer tokens,
// each with the host names it may send snapshots as and whether it may read; agents and the CLI
// send theirs as "authorization: Bearer <token>". Secrets are kept only as SHA-256 digests and
// compared in constant time. Without a file (--insecure) every caller may do everything.
//
// The file is TOML:
//   [[token]]
//   name = "web agents"        # shown in logs, never the secret
//   secret = "..."             # or secret_sha256 = "<64 hex digits>"
//   write = ["web*", "db01"]   # host name patterns ('*' wildcards, case ignored)
//   read = true

#ifndef PERFHIVE_SERVER_ENROLLMENT_TOKEN_TABLE_H_
#define PERFHIVE_SERVER_ENROLLMENT_TOKEN_TABLE_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "port/sha256.h"

namespace perfhive {

// What one token allows.
struct Principal {
  std::string name;
  std::vector<std::string> write_hosts;  // patterns
  bool read = false;
  std::string certificate_serial;  // an enrolled host's certificate; empty for a token
  std::string enrolled_host;       // the host that certificate names; empty for a token

  bool MayWriteAs(std::string_view host) const;
  // May speak for the poller named `poller` (docs/policies.md): a certificate issued to it, or a
  // token that may write as it.
  bool MayActAsPoller(std::string_view poller) const;
};

class TokenTable {
 public:
  // Every caller is the same principal that may do everything (--insecure).
  static TokenTable AllowAll();
  // No token at all: every caller must present an enrolled client certificate instead.
  static TokenTable None() { return TokenTable(); }
  // Errors name the file, the token's position and what is wrong.
  static Result<TokenTable> Load(const std::string& path);
  static Result<TokenTable> Parse(std::string_view text, const std::string& origin);

  // The principal of an "authorization" header value ("Bearer <token>"), or an
  // UNAUTHENTICATED error saying what is missing or wrong (never echoing the secret).
  Result<Principal> Authenticate(std::string_view authorization) const;

  size_t size() const { return tokens_.size(); }

 private:
  struct Entry {
    Sha256Digest secret_sha256;
    Principal principal;
  };
  bool allow_all_ = false;
  std::vector<Entry> tokens_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ENROLLMENT_TOKEN_TABLE_H_
