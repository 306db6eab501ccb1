#include "server/enrollment/enrollment_registry.h"

#include <openssl/crypto.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <system_error>

#include "perfdata/case_folding.h"
#include "perfdata/display_text.h"
#include "perfdata/host_name.h"
#include "perfdata/name_pattern.h"
#include "perfdata/time_text.h"
#include "pki/random_hex.h"
#include "port/sha256.h"
#include "store/sqlite.h"

namespace perfhive {
namespace {

using Clock = std::chrono::system_clock;

constexpr int64_t kSchemaVersion = 2;
constexpr char kPrefix[] = "phe1_";
constexpr size_t kIdDigits = 8;
constexpr size_t kSecretDigits = 32;
// Hosts one poller may enroll for.
constexpr size_t kMaxTargets = 1024;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS enrollment_tokens (
  id TEXT PRIMARY KEY,
  secret_sha256 BLOB NOT NULL,
  uses INTEGER,
  uses_left INTEGER,
  expires INTEGER,
  read INTEGER NOT NULL,
  created INTEGER NOT NULL,
  revoked INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS enrollment_token_hosts (
  token_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  pattern TEXT NOT NULL,
  PRIMARY KEY (token_id, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS credentials (
  serial TEXT PRIMARY KEY COLLATE NOCASE,
  host TEXT NOT NULL,
  host_key TEXT NOT NULL,
  token_id TEXT NOT NULL,
  issued INTEGER NOT NULL,
  expires INTEGER NOT NULL,
  revoked INTEGER,
  read INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS credentials_by_host ON credentials (host_key, issued);
)sql";

// Version 2: the hosts an agentless poller's certificate may write as, besides its own; and
// credentials by revocation time, which the server asks for every few seconds.
constexpr const char* kSchemaTargets = R"sql(
CREATE TABLE IF NOT EXISTS credential_targets (
  serial TEXT NOT NULL COLLATE NOCASE,
  position INTEGER NOT NULL,
  host TEXT NOT NULL,
  host_key TEXT NOT NULL,
  PRIMARY KEY (serial, position)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS credential_targets_by_host ON credential_targets (host_key);
CREATE INDEX IF NOT EXISTS credentials_by_revoked ON credentials (revoked);
)sql";

// SqliteDb keeps prepared statements keyed by the SQL text's address, so each is one constant.
constexpr char kSelectTokenExists[] = "SELECT 1 FROM enrollment_tokens WHERE id = ?1";
constexpr char kInsertToken[] =
    "INSERT INTO enrollment_tokens (id, secret_sha256, uses, uses_left, expires, read, created)"
    " VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6)";
constexpr char kInsertTokenHost[] =
    "INSERT INTO enrollment_token_hosts (token_id, position, pattern) VALUES (?1, ?2, ?3)";
constexpr char kListTokens[] =
    "SELECT t.id, t.uses_left, t.expires, t.read, t.created, t.revoked, h.pattern"
    " FROM enrollment_tokens t JOIN enrollment_token_hosts h ON h.token_id = t.id"
    " ORDER BY t.created, t.id, h.position";
constexpr char kRevokeToken[] = "UPDATE enrollment_tokens SET revoked = 1 WHERE id = ?1";
constexpr char kSelectToken[] =
    "SELECT secret_sha256, uses, uses_left, expires, read, created, revoked"
    " FROM enrollment_tokens WHERE id = ?1";
constexpr char kSelectTokenHosts[] =
    "SELECT pattern FROM enrollment_token_hosts WHERE token_id = ?1 ORDER BY position";
constexpr char kSpendUse[] = "UPDATE enrollment_tokens SET uses_left = uses_left - 1 WHERE id = ?1";
constexpr char kSelectCredentialExists[] = "SELECT 1 FROM credentials WHERE serial = ?1";
constexpr char kSelectCredentialUnrevoked[] =
    "SELECT 1 FROM credentials WHERE serial = ?1 AND revoked IS NULL";
constexpr char kInsertCredential[] =
    "INSERT INTO credentials (serial, host, host_key, token_id, issued, expires, revoked, read)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
constexpr char kSelectCredential[] =
    "SELECT serial, host, token_id, issued, expires, revoked, read FROM credentials"
    " WHERE serial = ?1";
constexpr char kListCredentials[] =
    "SELECT serial, host, token_id, issued, expires, revoked, read FROM credentials"
    " WHERE read = ?1 ORDER BY host_key, issued DESC, serial";
// A reader's as well as a host's: a revoked credential is refused whoever holds it.
constexpr char kRevokedSince[] =
    "SELECT serial, host, token_id, issued, expires, revoked, read FROM credentials"
    " WHERE revoked >= ?1";
constexpr char kInsertTarget[] =
    "INSERT INTO credential_targets (serial, position, host, host_key) VALUES (?1, ?2, ?3, ?4)";
constexpr char kSelectTargets[] =
    "SELECT host FROM credential_targets WHERE serial = ?1 ORDER BY position";
// A host's credentials: its own, and the pollers' that may write as it; never a reader's, whose
// name is a login's and says nothing of a host's (issue 34, 7).
constexpr char kCountHostCredentials[] =
    "SELECT count(*), count(*) - count(revoked) FROM credentials WHERE read = 0 AND (host_key = ?1"
    " OR serial IN (SELECT serial FROM credential_targets WHERE host_key = ?1))";
constexpr char kRevokeHost[] =
    "UPDATE credentials SET revoked = ?2 WHERE revoked IS NULL AND read = 0 AND (host_key = ?1"
    " OR serial IN (SELECT serial FROM credential_targets WHERE host_key = ?1))";
// A reader's credentials: those issued to its name for reading.
constexpr char kCountReaderCredentials[] =
    "SELECT count(*), count(*) - count(revoked) FROM credentials WHERE read = 1 AND host_key = ?1";
constexpr char kRevokeReader[] =
    "UPDATE credentials SET revoked = ?2 WHERE revoked IS NULL AND read = 1 AND host_key = ?1";

Status Unauthenticated(std::string message) {
  return Status(StatusCode::kUnauthenticated, std::move(message));
}

int64_t ToNanos(Clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

Clock::time_point FromNanos(int64_t nanos) {
  return Clock::time_point(
      std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(nanos)));
}

std::span<const uint8_t> BytesOf(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

bool IsHex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

// The id and secret of "phe1_<id>_<secret>", taken in either case. Nothing of the text is
// repeated in the error: it may be a secret typed into the wrong place.
struct TokenText {
  std::string id;
  std::string secret;
};
Result<TokenText> ParseTokenText(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  std::string_view rest = lower;
  constexpr size_t kPrefixSize = sizeof(kPrefix) - 1;
  if (rest.size() != kPrefixSize + kIdDigits + 1 + kSecretDigits || !rest.starts_with(kPrefix) ||
      rest[kPrefixSize + kIdDigits] != '_' || !IsHex(rest.substr(kPrefixSize, kIdDigits)) ||
      !IsHex(rest.substr(kPrefixSize + kIdDigits + 1))) {
    return Unauthenticated(
        "malformed enrollment token: expected phe1_, 8 hex digits, _ and 32 hex digits");
  }
  return TokenText{.id = std::string(rest.substr(kPrefixSize, kIdDigits)),
                   .secret = std::string(rest.substr(kPrefixSize + kIdDigits + 1))};
}

Status CheckPattern(std::string_view pattern) {
  if (pattern.empty()) return Status::InvalidArgument("a host pattern is empty");
  if (pattern.size() > kMaxHostNameBytes) {
    return Status::InvalidArgument("host pattern " + TruncateUtf8(EscapeForDisplay(pattern), 64) +
                                   " is longer than " + std::to_string(kMaxHostNameBytes) +
                                   " bytes");
  }
  for (char c : pattern) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return Status::InvalidArgument("host pattern \"" + EscapeForDisplay(pattern) +
                                     "\" holds a control character");
    }
  }
  return Status();
}

// "web*, db01", each shown escaped.
std::string JoinPatterns(const std::vector<std::string>& patterns) {
  std::string joined;
  for (const std::string& pattern : patterns) {
    if (!joined.empty()) joined += ", ";
    joined += EscapeForDisplay(pattern);
  }
  return joined;
}

std::optional<int64_t> OptionalInt(const SqliteStatement& row, int column) {
  if (row.IsNull(column)) return std::nullopt;
  return row.Int(column);
}

// The first column of every row `sql` selects for `key`, in order: a token's host patterns, a
// poller's targets.
Result<std::vector<std::string>> LoadTexts(SqliteDb& db, const char* sql, const std::string& key) {
  Result<SqliteStatement*> select = db.Prepare(sql);
  if (!select.ok()) return select.status();
  std::vector<std::string> texts;
  if (Status s = (*select)->Bind(1, key).ForEachRow(
          [&](const SqliteStatement& row) { texts.push_back(row.Text(0)); });
      !s.ok()) {
    return s;
  }
  return texts;
}

// A credential from the columns serial, host, token_id, issued, expires, revoked.
CredentialInfo CredentialFrom(const SqliteStatement& row) {
  CredentialInfo credential;
  credential.serial = row.Text(0);
  credential.host = row.Text(1);
  credential.token_id = row.Text(2);
  credential.issued = FromNanos(row.Int(3));
  credential.expires = FromNanos(row.Int(4));
  if (!row.IsNull(5)) credential.revoked = FromNanos(row.Int(5));
  credential.read = row.Int(6) != 0;
  return credential;
}

// How many credentials `sql`, one of the kCount...Credentials, finds for `key`, and how many of
// them are unrevoked.
struct CredentialCount {
  int64_t issued = 0;
  int64_t unrevoked = 0;
};
Result<CredentialCount> CountCredentials(SqliteDb& db, const char* sql, const std::string& key) {
  Result<SqliteStatement*> count = db.Prepare(sql);
  if (!count.ok()) return count.status();
  Result<bool> row = (*count)->Bind(1, key).Step();
  if (!row.ok()) return row.status();
  CredentialCount counted;
  if (*row) counted = {.issued = (*count)->Int(0), .unrevoked = (*count)->Int(1)};
  (*count)->Reset();
  return counted;
}

// Whether `sql`, a "SELECT 1 ... WHERE key = ?1", finds `key`.
Result<bool> Exists(SqliteDb& db, const char* sql, const std::string& key) {
  Result<SqliteStatement*> select = db.Prepare(sql);
  if (!select.ok()) return select.status();
  Result<bool> row = (*select)->Bind(1, key).Step();
  (*select)->Reset();
  return row;
}

}  // namespace

// Hosts and readers apart: what is asked or done about the one never touches the other's
// credentials, whose names may be the same.
struct EnrollmentRegistry::Holder {
  int64_t read;                // the credentials' read column
  const char* noun;            // in messages: "host", "reader"
  const char* count_sql;       // kCount...Credentials
  const char* revoke_sql;      // kRevoke...
  const char* revoke_command;  // what an administrator runs to revoke one
  const Holder* other;         // the other kind, whose name a mistaken revocation may give
};

const EnrollmentRegistry::Holder EnrollmentRegistry::kHost = {
    0, "host", kCountHostCredentials, kRevokeHost, "perfhive-server hosts revoke", &kReader};
const EnrollmentRegistry::Holder EnrollmentRegistry::kReader = {
    1, "reader", kCountReaderCredentials, kRevokeReader, "perfhive-server readers revoke", &kHost};

Result<std::unique_ptr<EnrollmentRegistry>> EnrollmentRegistry::Open(const std::string& data_dir) {
  std::filesystem::path dir = std::filesystem::path(data_dir) / "pki";
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return Status::Error("enrollment: cannot create " + dir.string() + ": " + error.message());
  }
  Result<std::unique_ptr<SqliteDb>> db = SqliteDb::Open((dir / "enrollment.db").string());
  if (!db.ok()) return db.status();
  // The busy timeout first, so that the rest waits for another process opening the file too.
  // synchronous=FULL: a use spent or a certificate recorded survives a power cut.
  if (Status s = (*db)->Exec("PRAGMA busy_timeout=5000; PRAGMA journal_mode=WAL;"
                             "PRAGMA synchronous=FULL;");
      !s.ok()) {
    return s;
  }
  // Each upgrade in order, from the database's version to this build's.
  const char* const upgrades[] = {kSchema, kSchemaTargets};
  static_assert(std::size(upgrades) == kSchemaVersion);
  if (Status s = UpgradeSchema(**db, upgrades, "enrollment " + (*db)->path()); !s.ok()) return s;
  return std::unique_ptr<EnrollmentRegistry>(new EnrollmentRegistry(std::move(*db)));
}

EnrollmentRegistry::EnrollmentRegistry(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

EnrollmentRegistry::~EnrollmentRegistry() = default;

Result<std::pair<std::string, EnrollmentTokenInfo>> EnrollmentRegistry::CreateToken(
    const EnrollmentTokenSpec& spec, std::chrono::system_clock::time_point now) {
  if (spec.host_patterns.empty()) {
    return Status::InvalidArgument("an enrollment token needs a host pattern ('*' for any host)");
  }
  for (const std::string& pattern : spec.host_patterns) {
    if (Status s = CheckPattern(pattern); !s.ok()) return s;
  }
  if (spec.uses && *spec.uses < 1) {
    return Status::InvalidArgument("an enrollment token's uses must be at least 1, not " +
                                   std::to_string(*spec.uses));
  }
  if (spec.valid_for && spec.valid_for->count() <= 0) {
    return Status::InvalidArgument("an enrollment token's validity must be positive");
  }
  Result<std::string> secret = RandomHex(kSecretDigits / 2);
  if (!secret.ok()) return secret.status();
  EnrollmentTokenInfo info;
  info.host_patterns = spec.host_patterns;
  info.uses_left = spec.uses;
  info.read = spec.read;
  info.created = now;
  if (spec.valid_for) info.expires = now + *spec.valid_for;
  Sha256Digest digest = Sha256(BytesOf(*secret));

  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(db_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  // 32 random bits: a clash is rare but possible once there are many tokens, so draw again.
  for (;;) {
    Result<std::string> id = RandomHex(kIdDigits / 2);
    if (!id.ok()) return id.status();
    Result<bool> taken = Exists(*db_, kSelectTokenExists, *id);
    if (!taken.ok()) return taken.status();
    if (!*taken) {
      info.id = std::move(*id);
      break;
    }
  }
  Result<SqliteStatement*> insert = db_->Prepare(kInsertToken);
  if (!insert.ok()) return insert.status();
  (*insert)->Bind(1, info.id).BindBlob(2, digest);
  if (spec.uses) {
    (*insert)->Bind(3, int64_t{*spec.uses});
  } else {
    (*insert)->BindNull(3);
  }
  if (info.expires) {
    (*insert)->Bind(4, ToNanos(*info.expires));
  } else {
    (*insert)->BindNull(4);
  }
  (*insert)->Bind(5, int64_t{spec.read ? 1 : 0}).Bind(6, ToNanos(now));
  if (Status s = (*insert)->Run(); !s.ok()) return s;
  Result<SqliteStatement*> insert_host = db_->Prepare(kInsertTokenHost);
  if (!insert_host.ok()) return insert_host.status();
  for (size_t i = 0; i < spec.host_patterns.size(); ++i) {
    (*insert_host)
        ->Bind(1, info.id)
        .Bind(2, static_cast<int64_t>(i))
        .Bind(3, spec.host_patterns[i]);
    if (Status s = (*insert_host)->Run(); !s.ok()) return s;
  }
  if (Status s = transaction.Commit(); !s.ok()) return s;
  std::string text = kPrefix + info.id + "_" + *secret;
  return std::pair(std::move(text), std::move(info));
}

Result<std::vector<EnrollmentTokenInfo>> EnrollmentRegistry::ListTokens() {
  std::lock_guard lock(mutex_);
  Result<SqliteStatement*> select = db_->Prepare(kListTokens);
  if (!select.ok()) return select.status();
  // One row a pattern, a token's rows together and in order.
  std::vector<EnrollmentTokenInfo> tokens;
  Status status = (*select)->ForEachRow([&](const SqliteStatement& row) {
    std::string id = row.Text(0);
    if (tokens.empty() || tokens.back().id != id) {
      EnrollmentTokenInfo& token = tokens.emplace_back();
      token.id = std::move(id);
      if (std::optional<int64_t> uses_left = OptionalInt(row, 1)) {
        token.uses_left = static_cast<int>(*uses_left);
      }
      if (std::optional<int64_t> expires = OptionalInt(row, 2)) token.expires = FromNanos(*expires);
      token.read = row.Int(3) != 0;
      token.created = FromNanos(row.Int(4));
      token.revoked = row.Int(5) != 0;
    }
    tokens.back().host_patterns.push_back(row.Text(6));
  });
  if (!status.ok()) return status;
  return tokens;
}

Status EnrollmentRegistry::RevokeToken(const std::string& id) {
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(db_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  Result<bool> exists = Exists(*db_, kSelectTokenExists, id);
  if (!exists.ok()) return exists.status();
  if (!*exists) {
    return Status::NotFound("no enrollment token " + TruncateUtf8(EscapeForDisplay(id), 64));
  }
  Result<SqliteStatement*> update = db_->Prepare(kRevokeToken);
  if (!update.ok()) return update.status();
  if (Status s = (*update)->Bind(1, id).Run(); !s.ok()) return s;
  return transaction.Commit();
}

Result<EnrollmentTokenInfo> EnrollmentRegistry::Redeem(std::string_view token_text,
                                                       std::string_view host_name,
                                                       std::chrono::system_clock::time_point now,
                                                       const std::vector<std::string>& targets) {
  Result<TokenText> text = ParseTokenText(token_text);
  if (!text.ok()) return text.status();
  if (Status s = CheckHostName(host_name); !s.ok()) return s;
  if (targets.size() > kMaxTargets) {
    return Status::InvalidArgument("a poller may enroll for at most " +
                                   std::to_string(kMaxTargets) + " targets, not " +
                                   std::to_string(targets.size()));
  }
  for (const std::string& target : targets) {
    if (Status s = CheckHostName(target); !s.ok()) return s.Prefixed("target: ");
  }
  const std::string name = "enrollment token " + text->id;

  std::lock_guard lock(mutex_);
  // BEGIN IMMEDIATE: two redemptions racing for a token's last use, in this process or another,
  // take turns, and only the first gets it.
  SqliteTransaction transaction(db_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  Result<SqliteStatement*> select = db_->Prepare(kSelectToken);
  if (!select.ok()) return select.status();
  Result<bool> found = (*select)->Bind(1, text->id).Step();
  if (!found.ok()) return found.status();
  if (!*found) return Unauthenticated("unknown " + name);
  std::span<const uint8_t> stored = (*select)->Blob(0);
  Sha256Digest presented = Sha256(BytesOf(text->secret));
  bool secret_matches = stored.size() == presented.size() &&
                        CRYPTO_memcmp(stored.data(), presented.data(), presented.size()) == 0;
  std::optional<int64_t> uses = OptionalInt(**select, 1);
  std::optional<int64_t> uses_left = OptionalInt(**select, 2);
  std::optional<int64_t> expires = OptionalInt(**select, 3);
  EnrollmentTokenInfo info;
  info.id = text->id;
  info.read = (*select)->Int(4) != 0;
  info.created = FromNanos((*select)->Int(5));
  info.revoked = (*select)->Int(6) != 0;
  (*select)->Reset();

  if (!secret_matches) return Unauthenticated(name + ": wrong secret");
  if (info.revoked) return Unauthenticated(name + " was revoked");
  // A reader reads; it writes for no host, so it polls none: its certificate would carry targets
  // nothing honours. Refused before a use is spent.
  if (info.read && !targets.empty()) {
    return Status::InvalidArgument(name + " is a reader's (--read): a reader polls no hosts; " +
                                   "enroll it without targets, or make a host token for a poller");
  }
  if (expires) {
    info.expires = FromNanos(*expires);
    if (ToNanos(now) >= *expires) {
      return Unauthenticated(name + " expired at " + FormatRfc3339(*expires));
    }
  }
  if (uses_left && *uses_left <= 0) {
    int64_t had = uses.value_or(0);
    return Unauthenticated(name + " is used up: it had " + std::to_string(had) +
                           (had == 1 ? " use" : " uses"));
  }
  Result<std::vector<std::string>> patterns = LoadTexts(*db_, kSelectTokenHosts, text->id);
  if (!patterns.ok()) return patterns.status();
  info.host_patterns = std::move(*patterns);
  // The same matching as a token file's write patterns (Principal::MayWriteAs): the host and
  // every target it polls.
  auto allowed = [&](std::string_view host) {
    for (const std::string& pattern : info.host_patterns) {
      if (MatchesPattern(pattern, host)) return true;
    }
    return false;
  };
  if (!allowed(host_name)) {
    return Unauthenticated(name + " is not for host " + std::string(host_name) +
                           ": its host patterns are " + JoinPatterns(info.host_patterns));
  }
  for (const std::string& target : targets) {
    if (!allowed(target)) {
      return Unauthenticated(name + " is not for the polled host " + target +
                             ": its host patterns are " + JoinPatterns(info.host_patterns));
    }
  }

  if (uses_left) {
    Result<SqliteStatement*> spend = db_->Prepare(kSpendUse);
    if (!spend.ok()) return spend.status();
    if (Status s = (*spend)->Bind(1, text->id).Run(); !s.ok()) return s;
    info.uses_left = static_cast<int>(*uses_left - 1);
  }
  if (Status s = transaction.Commit(); !s.ok()) return s;
  return info;
}

Status EnrollmentRegistry::RecordCredential(const CredentialInfo& credential,
                                            std::string_view renews) {
  if (credential.serial.empty() || credential.serial.size() > 64 || !IsHex(credential.serial)) {
    return Status::InvalidArgument("certificate serial \"" +
                                   TruncateUtf8(EscapeForDisplay(credential.serial), 80) +
                                   "\" is not 1 to 64 hex digits");
  }
  if (Status s = CheckHostName(credential.host); !s.ok()) return s;
  for (const std::string& target : credential.targets) {
    if (Status s = CheckHostName(target); !s.ok()) return s.Prefixed("target: ");
  }

  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(db_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  Result<bool> exists = Exists(*db_, kSelectCredentialExists, credential.serial);
  if (!exists.ok()) return exists.status();
  if (*exists) {
    return Status(StatusCode::kAlreadyExists,
                  "a certificate with serial " + credential.serial + " was recorded before");
  }
  if (!renews.empty()) {
    Result<bool> renewable = Exists(*db_, kSelectCredentialUnrevoked, std::string(renews));
    if (!renewable.ok()) return renewable.status();
    if (!*renewable) {
      return Status(StatusCode::kUnauthenticated,
                    "certificate " + std::string(renews) + " of " + credential.host +
                        " was revoked while its renewal was signed: no certificate is issued");
    }
  }
  Result<SqliteStatement*> insert = db_->Prepare(kInsertCredential);
  if (!insert.ok()) return insert.status();
  std::string host_key = FoldCase(credential.host);
  (*insert)
      ->Bind(1, credential.serial)
      .Bind(2, credential.host)
      .Bind(3, host_key)
      .Bind(4, credential.token_id)
      .Bind(5, ToNanos(credential.issued))
      .Bind(6, ToNanos(credential.expires))
      .Bind(8, int64_t{credential.read ? 1 : 0});
  if (credential.revoked) {
    (*insert)->Bind(7, ToNanos(*credential.revoked));
  } else {
    (*insert)->BindNull(7);
  }
  if (Status s = (*insert)->Run(); !s.ok()) return s;
  for (size_t i = 0; i < credential.targets.size(); ++i) {
    Result<SqliteStatement*> target = db_->Prepare(kInsertTarget);
    if (!target.ok()) return target.status();
    if (Status s = (*target)
                       ->Bind(1, credential.serial)
                       .Bind(2, static_cast<int64_t>(i))
                       .Bind(3, credential.targets[i])
                       .Bind(4, FoldCase(credential.targets[i]))
                       .Run();
        !s.ok()) {
      return s;
    }
  }
  return transaction.Commit();
}

Result<CredentialInfo> EnrollmentRegistry::FindCredential(const std::string& serial) {
  std::lock_guard lock(mutex_);
  Result<SqliteStatement*> select = db_->Prepare(kSelectCredential);
  if (!select.ok()) return select.status();
  Result<bool> found = (*select)->Bind(1, serial).Step();
  if (!found.ok()) return found.status();
  if (!*found) {
    return Status::NotFound("no certificate with serial " +
                            TruncateUtf8(EscapeForDisplay(serial), 80) + " was issued here");
  }
  CredentialInfo credential = CredentialFrom(**select);
  (*select)->Reset();
  Result<std::vector<std::string>> targets = LoadTexts(*db_, kSelectTargets, credential.serial);
  if (!targets.ok()) return targets.status();
  credential.targets = std::move(targets).value();
  return credential;
}

Result<std::vector<CredentialInfo>> EnrollmentRegistry::ListHostCredentials() {
  return ListCredentials(kHost);
}

Result<std::vector<CredentialInfo>> EnrollmentRegistry::ListReaderCredentials() {
  return ListCredentials(kReader);
}

Result<std::vector<CredentialInfo>> EnrollmentRegistry::ListCredentials(const Holder& holder) {
  std::lock_guard lock(mutex_);
  Result<SqliteStatement*> select = db_->Prepare(kListCredentials);
  if (!select.ok()) return select.status();
  std::vector<CredentialInfo> credentials;
  Status status = (*select)->Bind(1, holder.read).ForEachRow([&](const SqliteStatement& row) {
    credentials.push_back(CredentialFrom(row));
  });
  if (!status.ok()) return status;
  for (CredentialInfo& credential : credentials) {
    Result<std::vector<std::string>> targets = LoadTexts(*db_, kSelectTargets, credential.serial);
    if (!targets.ok()) return targets.status();
    credential.targets = std::move(targets).value();
  }
  return credentials;
}

Result<std::vector<CredentialInfo>> EnrollmentRegistry::RevokedSince(
    std::chrono::system_clock::time_point since) {
  std::lock_guard lock(mutex_);
  Result<SqliteStatement*> select = db_->Prepare(kRevokedSince);
  if (!select.ok()) return select.status();
  std::vector<CredentialInfo> revoked;
  if (Status s = (*select)->Bind(1, ToNanos(since)).ForEachRow([&](const SqliteStatement& row) {
        revoked.push_back(CredentialFrom(row));
      });
      !s.ok()) {
    return s;
  }
  return revoked;
}

Result<int> EnrollmentRegistry::RevokeHost(std::string_view host,
                                           std::chrono::system_clock::time_point now) {
  return Revoke(kHost, host, now);
}

Result<int> EnrollmentRegistry::RevokeReader(std::string_view reader,
                                             std::chrono::system_clock::time_point now) {
  return Revoke(kReader, reader, now);
}

Result<int> EnrollmentRegistry::Revoke(const Holder& holder, std::string_view name,
                                       std::chrono::system_clock::time_point now) {
  std::string key = FoldCase(name);
  std::lock_guard lock(mutex_);
  SqliteTransaction transaction(db_.get());
  if (Status s = transaction.Begin(); !s.ok()) return s;
  Result<CredentialCount> count = CountCredentials(*db_, holder.count_sql, key);
  if (!count.ok()) return count.status();
  if (count->issued == 0) {
    std::string shown = TruncateUtf8(EscapeForDisplay(name), 80);
    std::string message =
        std::string("no certificates were issued to ") + holder.noun + " " + shown;
    // The name of the other kind given to the wrong command: say which one revokes it.
    Result<CredentialCount> other = CountCredentials(*db_, holder.other->count_sql, key);
    if (!other.ok()) return other.status();
    if (other->issued > 0) {
      message += std::string(", only to a ") + holder.other->noun +
                 " of that name: " + holder.other->revoke_command + " " + shown + " revokes a " +
                 holder.other->noun + "'s";
    }
    return Status::NotFound(std::move(message));
  }
  if (count->unrevoked > 0) {
    Result<SqliteStatement*> update = db_->Prepare(holder.revoke_sql);
    if (!update.ok()) return update.status();
    if (Status s = (*update)->Bind(1, key).Bind(2, ToNanos(now)).Run(); !s.ok()) return s;
    if (Status s = transaction.Commit(); !s.ok()) return s;
  }
  return static_cast<int>(count->unrevoked);
}

}  // namespace perfhive
