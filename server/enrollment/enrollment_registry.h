// EnrollmentRegistry: the enrollment tokens an administrator made and the client certificates
// agents got for them (issue 22, docs/enrollment.md). An enrollment token is a reusable secret
// that an agent exchanges, once, for a certificate bound to its host name; the registry checks a
// token and spends one of its uses, and remembers every certificate issued so that a host's can
// be revoked. A reader's certificate (perfhive login --enroll) is recorded beside the hosts' but
// apart from them: a reader may take a host's name, and what is asked or done about a host
// (listing, counting, revoking) never touches a reader's credentials, nor the reverse.
//
// The token text given to people is "phe1_<id>_<secret>": "phe1" names the format, the id is 8
// lower-case hex digits (random; it names the token in listings and logs) and the secret 32
// lower-case hex digits from OpenSSL's CSPRNG (128 bits). Only the secret's SHA-256 is kept, so
// the text is shown once, when the token is made, and a copy of the database enrolls no one.
//
// The registry is one SQLite database, DATA/pki/enrollment.db, beside the CA that signs the
// certificates. The running server and `perfhive-server enroll ...` commands open it at the same
// time, so it is in WAL mode, waits up to 5 s for the other's lock, and every change (a use spent
// above all) is one transaction that commits durably (synchronous=FULL). PRAGMA user_version is
// the schema's version, 2 (an older database is upgraded on open); a newer one is refused. Times
// are Unix nanoseconds (UTC). Tables:
//
//   enrollment_tokens: one row a token.
//     id TEXT PRIMARY KEY       the 8 hex digits of the token text
//     secret_sha256 BLOB        SHA-256 of the secret's 32 hex digits (as text, lower case)
//     uses INTEGER              the uses it was made with; NULL for unlimited
//     uses_left INTEGER         what remains of them; NULL for unlimited
//     expires INTEGER           when it stops working; NULL for never
//     read INTEGER              1 for a token of the CLI's read credential, else 0
//     created INTEGER
//     revoked INTEGER           1 once revoked (it then stays listed), else 0
//   enrollment_token_hosts: the host-name patterns of a token, in the order given.
//     token_id TEXT, position INTEGER (from 0), pattern TEXT; primary key (token_id, position)
//   credentials: one row a certificate issued.
//     serial TEXT PRIMARY KEY   the certificate's serial number in hex, as recorded; compared
//                               ignoring case (COLLATE NOCASE)
//     host TEXT                 the host name it is bound to, as the agent gave it (a reader's
//                               name for a reader's)
//     host_key TEXT             the host name folded (perfdata/case_folding.h), as the store
//                               keys hosts, so that a host's certificates are found whatever
//                               the case; indexed with issued
//     token_id TEXT             the enrollment token it was issued for (not checked: a
//                               certificate may outlive its token's row)
//     issued INTEGER, expires INTEGER
//     revoked INTEGER           when it was revoked; NULL while valid; indexed (version 2)
//     read INTEGER              1 for a reader's certificate (perfhive login): it may read and
//                               write nothing; 0 for a host's
//   credential_targets (version 2): the hosts an agentless poller's certificate may write as,
//     besides its own name, in the order the poller gave them.
//     serial TEXT, position INTEGER (from 0), host TEXT, host_key TEXT (folded, indexed);
//     primary key (serial, position)
//
// Host-name patterns match as a token file's `write` patterns do (server/enrollment/token_table.h):
// '*' matches any run of characters, and case is ignored. Every method is thread-safe.

#ifndef PERFHIVE_SERVER_ENROLLMENT_ENROLLMENT_REGISTRY_H_
#define PERFHIVE_SERVER_ENROLLMENT_ENROLLMENT_REGISTRY_H_

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace perfhive {

class SqliteDb;

// What a new enrollment token allows.
struct EnrollmentTokenSpec {
  std::vector<std::string> host_patterns;         // at least one; "*" for any host
  std::optional<int> uses;                        // at least 1; unset for unlimited
  std::optional<std::chrono::seconds> valid_for;  // positive; unset for no expiry
  bool read = false;
};

// An enrollment token as the registry keeps it (never its secret).
struct EnrollmentTokenInfo {
  std::string id;
  std::vector<std::string> host_patterns;
  std::optional<int> uses_left;  // unset: unlimited
  std::optional<std::chrono::system_clock::time_point> expires;
  bool read = false;
  std::chrono::system_clock::time_point created;
  bool revoked = false;
};

// A client certificate issued to a host.
struct CredentialInfo {
  std::string serial;  // hex
  std::string host;
  std::string token_id;
  std::chrono::system_clock::time_point issued, expires;
  std::optional<std::chrono::system_clock::time_point> revoked;
  bool read = false;  // a reader's (perfhive login), not a host's: may read, writes nothing
  // An agentless poller's: the hosts it polls, which it may write as besides `host`.
  std::vector<std::string> targets = {};
};

class EnrollmentRegistry {
 public:
  // The registry of `data_dir`, making DATA/pki and the database when missing.
  static Result<std::unique_ptr<EnrollmentRegistry>> Open(const std::string& data_dir);
  ~EnrollmentRegistry();
  EnrollmentRegistry(const EnrollmentRegistry&) = delete;
  EnrollmentRegistry& operator=(const EnrollmentRegistry&) = delete;

  // Makes a token. Returns its text, to be shown once (it cannot be had again), and its info.
  // INVALID_ARGUMENT for no patterns, an empty pattern or one with control characters, uses
  // below 1 or a validity that is not positive.
  Result<std::pair<std::string, EnrollmentTokenInfo>> CreateToken(
      const EnrollmentTokenSpec& spec, std::chrono::system_clock::time_point now);
  // Every token, revoked and used-up ones too, oldest first.
  Result<std::vector<EnrollmentTokenInfo>> ListTokens();
  // Revokes the token with this id (again is fine); NOT_FOUND naming the id when there is none.
  Status RevokeToken(const std::string& id);

  // Checks `token_text` for enrolling `host_name` at `now` and, in the same transaction, spends
  // one of its uses. Returns the token as it is after that. UNAUTHENTICATED with a message for:
  // malformed text, an unknown id, a wrong secret (never shown), a revoked token, an expired one
  // (saying when), one used up (saying how many uses it had), and a host name matching none of
  // its patterns (naming them); INVALID_ARGUMENT for a host name that is not one
  // (perfdata/host_name.h). A refused redemption spends nothing. The text may be in either case.
  // An agentless poller gives the hosts it polls as `targets`: each must pass the same checks.
  Result<EnrollmentTokenInfo> Redeem(std::string_view token_text, std::string_view host_name,
                                     std::chrono::system_clock::time_point now,
                                     const std::vector<std::string>& targets = {});

  // Remembers a certificate issued. INVALID_ARGUMENT for a serial that is not hex or a host name
  // that is not one; ALREADY_EXISTS for a serial recorded before. With `renews`, the serial of
  // the certificate it renews: UNAUTHENTICATED, recording nothing, when that one is revoked or
  // unknown, checked in the same transaction as the insert, so that a revocation wins over a
  // renewal in flight (a revocation either comes first and is seen here, or comes after and
  // revokes the new certificate with the others).
  Status RecordCredential(const CredentialInfo& credential, std::string_view renews = {});
  // The credential with this serial (case ignored), NOT_FOUND when unknown.
  Result<CredentialInfo> FindCredential(const std::string& serial);
  // Every host's credential (agents' and pollers'), by host (folded name), each host's newest
  // first; readers' are not among them.
  Result<std::vector<CredentialInfo>> ListHostCredentials();
  // Every reader's credential, by reader (folded name), each reader's newest first.
  Result<std::vector<CredentialInfo>> ListReaderCredentials();
  // The credentials revoked at or after `since`, hosts' and readers' (without their targets):
  // one query for every open stream, however many there are.
  Result<std::vector<CredentialInfo>> RevokedSince(std::chrono::system_clock::time_point since);
  // Marks every unrevoked credential of `host` (case ignored) revoked at `now`, the pollers'
  // that may write as it too, never a reader's, and returns how many it marked (0 when all were
  // revoked already); NOT_FOUND when no host's names the host, saying so when a reader's does.
  Result<int> RevokeHost(std::string_view host, std::chrono::system_clock::time_point now);
  // The same for the credentials of reader `reader`, never a host's.
  Result<int> RevokeReader(std::string_view reader, std::chrono::system_clock::time_point now);

 private:
  struct Holder;  // hosts' or readers' credentials, and what a revocation of them says
  static const Holder kHost, kReader;

  explicit EnrollmentRegistry(std::unique_ptr<SqliteDb> db);
  Result<std::vector<CredentialInfo>> ListCredentials(const Holder& holder);
  Result<int> Revoke(const Holder& holder, std::string_view name,
                     std::chrono::system_clock::time_point now);

  std::mutex mutex_;  // the connection serves one thread at a time
  std::unique_ptr<SqliteDb> db_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ENROLLMENT_ENROLLMENT_REGISTRY_H_
