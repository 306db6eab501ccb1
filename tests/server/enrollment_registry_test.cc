// The enrollment registry: tokens made, listed, revoked and spent; every refusal saying why
// without showing a secret; credentials recorded and revoked by host or by reader, apart; and two
// registries on one directory, as the running server and a `perfhive-server enroll` command are.

#include "server/enrollment/enrollment_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "store/sqlite.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using testing::TempDir;
using Clock = std::chrono::system_clock;
using std::chrono::hours;
using std::chrono::minutes;

// 2025-03-01T10:00:00Z.
const Clock::time_point kNow = Clock::time_point(std::chrono::seconds(1'740'823'200));

std::unique_ptr<EnrollmentRegistry> OpenRegistry(const std::string& dir) {
  Result<std::unique_ptr<EnrollmentRegistry>> registry = EnrollmentRegistry::Open(dir);
  EXPECT_TRUE(registry.ok()) << registry.error();
  return registry.ok() ? std::move(registry).value() : nullptr;
}

EnrollmentTokenSpec Spec(std::vector<std::string> patterns, std::optional<int> uses = {},
                         std::optional<std::chrono::seconds> valid_for = {}) {
  return EnrollmentTokenSpec{
      .host_patterns = std::move(patterns), .uses = uses, .valid_for = valid_for, .read = false};
}

// The token's text, failing the test when it cannot be made.
std::string Create(EnrollmentRegistry& registry, const EnrollmentTokenSpec& spec,
                   Clock::time_point now = kNow) {
  Result<std::pair<std::string, EnrollmentTokenInfo>> made = registry.CreateToken(spec, now);
  EXPECT_TRUE(made.ok()) << made.error();
  return made.ok() ? made->first : "";
}

// "phe1_<id>_<secret>" -> id.
std::string IdOf(const std::string& text) { return text.substr(5, 8); }

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void ExpectUnauthenticated(const Result<EnrollmentTokenInfo>& redeemed,
                           const std::string& message) {
  ASSERT_FALSE(redeemed.ok());
  EXPECT_EQ(redeemed.status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(redeemed.error(), message);
}

TEST(EnrollmentRegistryTest, CreatesListsAndRevokesTokens) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path() + "/data");
  ASSERT_NE(registry, nullptr);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/data/pki/enrollment.db"));

  Result<std::pair<std::string, EnrollmentTokenInfo>> web =
      registry->CreateToken(Spec({"web*", "api-01"}, 3, hours(24 * 7)), kNow);
  ASSERT_TRUE(web.ok()) << web.error();
  EXPECT_THAT(web->first, MatchesRegex("phe1_[0-9a-f]{8}_[0-9a-f]{32}"));
  EXPECT_EQ(web->second.id, IdOf(web->first));
  EXPECT_THAT(web->second.host_patterns, ElementsAre("web*", "api-01"));
  EXPECT_EQ(web->second.uses_left, 3);
  EXPECT_EQ(web->second.expires, kNow + hours(24 * 7));
  EXPECT_FALSE(web->second.read);
  EXPECT_EQ(web->second.created, kNow);
  EXPECT_FALSE(web->second.revoked);

  EnrollmentTokenSpec read = Spec({"*"});
  read.read = true;
  Result<std::pair<std::string, EnrollmentTokenInfo>> cli =
      registry->CreateToken(read, kNow + minutes(1));
  ASSERT_TRUE(cli.ok()) << cli.error();
  EXPECT_NE(cli->second.id, web->second.id);
  EXPECT_NE(cli->first.substr(14), web->first.substr(14));  // the secrets

  Result<std::vector<EnrollmentTokenInfo>> tokens = registry->ListTokens();
  ASSERT_TRUE(tokens.ok()) << tokens.error();
  ASSERT_EQ(tokens->size(), 2u);
  EXPECT_EQ((*tokens)[0].id, web->second.id);
  EXPECT_THAT((*tokens)[0].host_patterns, ElementsAre("web*", "api-01"));
  EXPECT_EQ((*tokens)[0].uses_left, 3);
  EXPECT_EQ((*tokens)[0].expires, kNow + hours(24 * 7));
  EXPECT_EQ((*tokens)[0].created, kNow);
  EXPECT_FALSE((*tokens)[0].read);
  EXPECT_EQ((*tokens)[1].id, cli->second.id);
  EXPECT_THAT((*tokens)[1].host_patterns, ElementsAre("*"));
  EXPECT_EQ((*tokens)[1].uses_left, std::nullopt);
  EXPECT_EQ((*tokens)[1].expires, std::nullopt);
  EXPECT_TRUE((*tokens)[1].read);
  EXPECT_FALSE((*tokens)[1].revoked);

  ASSERT_TRUE(registry->RevokeToken(cli->second.id).ok());
  ASSERT_TRUE(registry->RevokeToken(cli->second.id).ok()) << "revoking again is no error";
  tokens = registry->ListTokens();
  ASSERT_TRUE(tokens.ok()) << tokens.error();
  ASSERT_EQ(tokens->size(), 2u);
  EXPECT_FALSE((*tokens)[0].revoked);
  EXPECT_TRUE((*tokens)[1].revoked);

  Status unknown = registry->RevokeToken("0badf00d");
  EXPECT_EQ(unknown.code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.message(), "no enrollment token 0badf00d");

  // Only digests are kept: no secret is anywhere in the database's files.
  registry.reset();
  std::string files;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() + "/data/pki")) {
    files += ReadAll(entry.path().string());
  }
  ASSERT_THAT(files, HasSubstr(web->second.id));
  EXPECT_THAT(files, Not(HasSubstr(web->first.substr(14))));
  EXPECT_THAT(files, Not(HasSubstr(cli->first.substr(14))));
}

TEST(EnrollmentRegistryTest, RefusesTokensThatCouldNeverBeUsed) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  auto error = [&](const EnrollmentTokenSpec& spec) {
    Result<std::pair<std::string, EnrollmentTokenInfo>> made = registry->CreateToken(spec, kNow);
    EXPECT_FALSE(made.ok());
    EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument);
    return made.error();
  };
  EXPECT_EQ(error(Spec({})), "an enrollment token needs a host pattern ('*' for any host)");
  EXPECT_EQ(error(Spec({"web*", ""})), "a host pattern is empty");
  EXPECT_EQ(error(Spec({"web\n01"})), "host pattern \"web\\n01\" holds a control character");
  EXPECT_EQ(error(Spec({"web*"}, 0)), "an enrollment token's uses must be at least 1, not 0");
  EXPECT_EQ(error(Spec({"web*"}, {}, std::chrono::seconds(0))),
            "an enrollment token's validity must be positive");
  Result<std::vector<EnrollmentTokenInfo>> tokens = registry->ListTokens();
  ASSERT_TRUE(tokens.ok()) << tokens.error();
  EXPECT_TRUE(tokens->empty());
}

TEST(EnrollmentRegistryTest, RedeemSpendsUsesUntilUsedUp) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"web*"}, 2));
  std::string id = IdOf(token);

  Result<EnrollmentTokenInfo> first = registry->Redeem(token, "web01", kNow);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->id, id);
  EXPECT_EQ(first->uses_left, 1);
  EXPECT_THAT(first->host_patterns, ElementsAre("web*"));
  EXPECT_EQ(first->created, kNow);
  Result<EnrollmentTokenInfo> second = registry->Redeem(token, "web02", kNow + minutes(1));
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(second->uses_left, 0);

  ExpectUnauthenticated(registry->Redeem(token, "web03", kNow + minutes(2)),
                        "enrollment token " + id + " is used up: it had 2 uses");
  Result<std::vector<EnrollmentTokenInfo>> tokens = registry->ListTokens();
  ASSERT_TRUE(tokens.ok()) << tokens.error();
  ASSERT_EQ(tokens->size(), 1u);
  EXPECT_EQ((*tokens)[0].uses_left, 0);

  std::string once = Create(*registry, Spec({"web*"}, 1));
  ASSERT_TRUE(registry->Redeem(once, "web04", kNow).ok());
  ExpectUnauthenticated(registry->Redeem(once, "web04", kNow),
                        "enrollment token " + IdOf(once) + " is used up: it had 1 use");
}

TEST(EnrollmentRegistryTest, UnlimitedTokenIsNeverUsedUp) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"*"}));
  for (int i = 0; i < 20; ++i) {
    Result<EnrollmentTokenInfo> redeemed =
        registry->Redeem(token, "host" + std::to_string(i), kNow + minutes(i));
    ASSERT_TRUE(redeemed.ok()) << redeemed.error();
    EXPECT_EQ(redeemed->uses_left, std::nullopt);
  }
}

TEST(EnrollmentRegistryTest, ExpiredTokenIsRefusedSayingWhen) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"web*"}, {}, hours(1)));
  Result<EnrollmentTokenInfo> in_time = registry->Redeem(token, "web01", kNow + minutes(59));
  ASSERT_TRUE(in_time.ok()) << in_time.error();
  EXPECT_EQ(in_time->expires, kNow + hours(1));
  ExpectUnauthenticated(registry->Redeem(token, "web01", kNow + hours(1)),
                        "enrollment token " + IdOf(token) + " expired at 2025-03-01T11:00:00Z");
  ExpectUnauthenticated(registry->Redeem(token, "web01", kNow + hours(48)),
                        "enrollment token " + IdOf(token) + " expired at 2025-03-01T11:00:00Z");
}

TEST(EnrollmentRegistryTest, RevokedTokenIsRefused) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"web*"}, 5));
  ASSERT_TRUE(registry->RevokeToken(IdOf(token)).ok());
  ExpectUnauthenticated(registry->Redeem(token, "web01", kNow),
                        "enrollment token " + IdOf(token) + " was revoked");
}

TEST(EnrollmentRegistryTest, WrongSecretIsRefusedWithoutShowingIt) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"web*"}, 1));
  std::string wrong = token;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  Result<EnrollmentTokenInfo> refused = registry->Redeem(wrong, "web01", kNow);
  ExpectUnauthenticated(refused, "enrollment token " + IdOf(token) + ": wrong secret");
  EXPECT_THAT(refused.error(), Not(HasSubstr(wrong.substr(14))));
  EXPECT_THAT(refused.error(), Not(HasSubstr(token.substr(14))));
  // A refusal spends nothing: the one use is still there.
  Result<EnrollmentTokenInfo> redeemed = registry->Redeem(token, "web01", kNow);
  ASSERT_TRUE(redeemed.ok()) << redeemed.error();
  EXPECT_EQ(redeemed->uses_left, 0);
}

TEST(EnrollmentRegistryTest, MalformedOrUnknownTokenIsRefused) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"*"}));
  const std::string secret = token.substr(14);
  const std::string malformed =
      "malformed enrollment token: expected phe1_, 8 hex digits, _ and 32 hex digits";
  for (const std::string& text :
       {std::string(), std::string("phe1_"), "phe2" + token.substr(4), token + "0",
        token.substr(0, token.size() - 1), token.substr(0, 13) + "-" + secret,
        "phe1_0123456g_" + secret, token.substr(0, 14) + secret.substr(1) + "x", " " + token,
        secret}) {
    Result<EnrollmentTokenInfo> refused = registry->Redeem(text, "web01", kNow);
    ExpectUnauthenticated(refused, malformed);
  }
  // The text is the same in either case, as people may retype it.
  std::string upper = token;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(registry->Redeem(upper, "web01", kNow).ok());

  std::string other_id = IdOf(token) == "00000000" ? "00000001" : "00000000";
  ExpectUnauthenticated(registry->Redeem("phe1_" + other_id + "_" + secret, "web01", kNow),
                        "unknown enrollment token " + other_id);
}

TEST(EnrollmentRegistryTest, HostMatchingNoPatternIsRefusedNamingThem) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"web*", "api-01"}, 2));
  ExpectUnauthenticated(registry->Redeem(token, "db01", kNow),
                        "enrollment token " + IdOf(token) +
                            " is not for host db01: its host patterns are web*, api-01");
  // Patterns ignore case, as a token file's do.
  Result<EnrollmentTokenInfo> web = registry->Redeem(token, "WEB07.example.com", kNow);
  ASSERT_TRUE(web.ok()) << web.error();
  EXPECT_EQ(web->uses_left, 1) << "the refusal spent nothing";
  Result<EnrollmentTokenInfo> api = registry->Redeem(token, "Api-01", kNow);
  ASSERT_TRUE(api.ok()) << api.error();
  EXPECT_EQ(api->uses_left, 0);
}

TEST(EnrollmentRegistryTest, MalformedHostNameIsInvalidAndSpendsNothing) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"*"}, 1));
  for (std::string_view host : {"", "web\\01", "web*", "web\n01"}) {
    Result<EnrollmentTokenInfo> refused = registry->Redeem(token, host, kNow);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument) << refused.error();
  }
  EXPECT_TRUE(registry->Redeem(token, "web01", kNow).ok());
}

TEST(EnrollmentRegistryTest, TwoRegistriesOnOneDirectorySeeEachOthersChanges) {
  TempDir dir;
  // The running server and an `enroll` command.
  std::unique_ptr<EnrollmentRegistry> server = OpenRegistry(dir.path());
  std::unique_ptr<EnrollmentRegistry> command = OpenRegistry(dir.path());
  ASSERT_NE(server, nullptr);
  ASSERT_NE(command, nullptr);

  std::string token = Create(*command, Spec({"web*"}, 3));
  Result<EnrollmentTokenInfo> redeemed = server->Redeem(token, "web01", kNow);
  ASSERT_TRUE(redeemed.ok()) << redeemed.error();
  Result<std::vector<EnrollmentTokenInfo>> tokens = command->ListTokens();
  ASSERT_TRUE(tokens.ok()) << tokens.error();
  ASSERT_EQ(tokens->size(), 1u);
  EXPECT_EQ((*tokens)[0].uses_left, 2);

  ASSERT_TRUE(server
                  ->RecordCredential({.serial = "0a1b",
                                      .host = "web01",
                                      .token_id = IdOf(token),
                                      .issued = kNow,
                                      .expires = kNow + hours(24),
                                      .revoked = std::nullopt})
                  .ok());
  Result<int> revoked = command->RevokeHost("web01", kNow + minutes(5));
  ASSERT_TRUE(revoked.ok()) << revoked.error();
  EXPECT_EQ(*revoked, 1);
  Result<CredentialInfo> found = server->FindCredential("0a1b");
  ASSERT_TRUE(found.ok()) << found.error();
  EXPECT_EQ(found->revoked, kNow + minutes(5));

  ASSERT_TRUE(command->RevokeToken(IdOf(token)).ok());
  ExpectUnauthenticated(server->Redeem(token, "web02", kNow),
                        "enrollment token " + IdOf(token) + " was revoked");
}

TEST(EnrollmentRegistryTest, RacingRedemptionsSpendEachUseOnce) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> first = OpenRegistry(dir.path());
  std::unique_ptr<EnrollmentRegistry> second = OpenRegistry(dir.path());
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  std::string token = Create(*first, Spec({"*"}, 5));
  std::atomic<int> redeemed = 0;
  std::atomic<int> used_up = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      EnrollmentRegistry& registry = t % 2 == 0 ? *first : *second;
      for (int i = 0; i < 5; ++i) {
        Result<EnrollmentTokenInfo> result =
            registry.Redeem(token, "host" + std::to_string(t * 10 + i), kNow);
        if (result.ok()) {
          ++redeemed;
        } else if (result.error().ends_with("is used up: it had 5 uses")) {
          ++used_up;
        } else {
          ADD_FAILURE() << result.error();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(redeemed, 5);
  EXPECT_EQ(used_up, 15);
}

// Regression: a host renewing on its stream while `hosts revoke` ran kept a new, valid
// certificate: the renewal checked the old one before signing, and the new row was inserted
// without checking again. The check is now in the insert's transaction.
TEST(EnrollmentRegistryTest, ARevocationWinsOverARenewalInFlight) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  auto credential = [](std::string serial, Clock::time_point issued) {
    return CredentialInfo{.serial = std::move(serial),
                          .host = "web01",
                          .token_id = "1234abcd",
                          .issued = issued,
                          .expires = issued + hours(24),
                          .revoked = std::nullopt};
  };
  ASSERT_TRUE(registry->RecordCredential(credential("aa01", kNow)).ok());
  // Renewed while unrevoked: recorded beside it.
  ASSERT_TRUE(registry->RecordCredential(credential("aa02", kNow + hours(16)), "aa01").ok());
  // The administrator revokes the host after the renewal of aa02 was checked and signed, before
  // it is recorded.
  ASSERT_EQ(registry->RevokeHost("web01", kNow + hours(17)).value(), 2);
  Status late = registry->RecordCredential(credential("aa03", kNow + hours(17)), "aa02");
  EXPECT_EQ(late.code(), StatusCode::kUnauthenticated);
  EXPECT_THAT(late.message(), HasSubstr("was revoked while its renewal was signed"));
  EXPECT_EQ(registry->FindCredential("aa03").status().code(), StatusCode::kNotFound);
  // A renewal of a certificate never issued here is refused too.
  EXPECT_EQ(registry->RecordCredential(credential("aa04", kNow), "ffff").code(),
            StatusCode::kUnauthenticated);
  Result<std::vector<CredentialInfo>> all = registry->ListHostCredentials();
  ASSERT_TRUE(all.ok());
  for (const CredentialInfo& each : *all) EXPECT_TRUE(each.revoked) << each.serial;
}

TEST(EnrollmentRegistryTest, RecordsFindsListsAndRevokesCredentialsByHost) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  auto record = [&](std::string serial, std::string host, Clock::time_point issued) {
    return registry->RecordCredential({.serial = std::move(serial),
                                       .host = std::move(host),
                                       .token_id = "1234abcd",
                                       .issued = issued,
                                       .expires = issued + hours(24 * 90),
                                       .revoked = std::nullopt});
  };
  ASSERT_TRUE(record("7f3e", "web01", kNow).ok());
  ASSERT_TRUE(record("01ab", "DB01", kNow + minutes(1)).ok());
  ASSERT_TRUE(record("5c5c", "WEB01", kNow + hours(1)).ok());

  Status again = record("7F3E", "web02", kNow);
  EXPECT_EQ(again.code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "a certificate with serial 7F3E was recorded before");
  Status not_hex = record("7g", "web02", kNow);
  EXPECT_EQ(not_hex.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(not_hex.message(), "certificate serial \"7g\" is not 1 to 64 hex digits");
  EXPECT_EQ(record("99", "web/02", kNow).code(), StatusCode::kInvalidArgument);

  Result<CredentialInfo> found = registry->FindCredential("7F3E");
  ASSERT_TRUE(found.ok()) << found.error();
  EXPECT_EQ(found->serial, "7f3e");
  EXPECT_EQ(found->host, "web01");
  EXPECT_EQ(found->token_id, "1234abcd");
  EXPECT_EQ(found->issued, kNow);
  EXPECT_EQ(found->expires, kNow + hours(24 * 90));
  EXPECT_EQ(found->revoked, std::nullopt);
  Result<CredentialInfo> unknown = registry->FindCredential("abcdef");
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.error(), "no certificate with serial abcdef was issued here");

  // By host, ignoring case; each host's newest first.
  Result<std::vector<CredentialInfo>> all = registry->ListHostCredentials();
  ASSERT_TRUE(all.ok()) << all.error();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].serial, "01ab");
  EXPECT_EQ((*all)[0].host, "DB01");
  EXPECT_EQ((*all)[1].serial, "5c5c");
  EXPECT_EQ((*all)[2].serial, "7f3e");

  Result<int> revoked = registry->RevokeHost("Web01", kNow + hours(2));
  ASSERT_TRUE(revoked.ok()) << revoked.error();
  EXPECT_EQ(*revoked, 2);
  all = registry->ListHostCredentials();
  ASSERT_TRUE(all.ok()) << all.error();
  EXPECT_EQ((*all)[0].revoked, std::nullopt);
  EXPECT_EQ((*all)[1].revoked, kNow + hours(2));
  EXPECT_EQ((*all)[2].revoked, kNow + hours(2));

  // Again: nothing left to revoke, and the first revocation's time stays.
  revoked = registry->RevokeHost("WEB01", kNow + hours(3));
  ASSERT_TRUE(revoked.ok()) << revoked.error();
  EXPECT_EQ(*revoked, 0);
  found = registry->FindCredential("5c5c");
  ASSERT_TRUE(found.ok()) << found.error();
  EXPECT_EQ(found->revoked, kNow + hours(2));

  Result<int> none = registry->RevokeHost("web02", kNow);
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(none.error(), "no certificates were issued to host web02");
}

// Issue 34, 7: readers and hosts shared one namespace of credentials, so `hosts revoke web02`
// also revoked a reader enrolled (perfhive login --enroll) as web02, even one that named web02
// as a polled host, and counted the reader's credential as the host's. A host's revocation
// touches hosts' credentials only.
TEST(EnrollmentRegistryTest, RevokingAHostSparesAReaderEnrolledUnderItsName) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  auto record = [&](std::string serial, std::string name, bool read,
                    std::vector<std::string> targets) {
    return registry->RecordCredential({.serial = std::move(serial),
                                       .host = std::move(name),
                                       .token_id = "1234abcd",
                                       .issued = kNow,
                                       .expires = kNow + hours(24),
                                       .revoked = std::nullopt,
                                       .read = read,
                                       .targets = std::move(targets)});
  };
  ASSERT_TRUE(record("0b01", "web02", false, {}).ok());
  ASSERT_TRUE(record("0b02", "WEB02", true, {}).ok());
  ASSERT_TRUE(record("0b03", "alice", true, {"web02"}).ok());

  Result<int> revoked = registry->RevokeHost("web02", kNow + minutes(1));
  ASSERT_TRUE(revoked.ok()) << revoked.error();
  EXPECT_EQ(*revoked, 1);
  EXPECT_EQ(registry->FindCredential("0b01")->revoked, kNow + minutes(1));
  EXPECT_EQ(registry->FindCredential("0b02")->revoked, std::nullopt);
  EXPECT_EQ(registry->FindCredential("0b03")->revoked, std::nullopt);

  // Listed apart: the hosts' list has the host's alone, the readers' both readers.
  Result<std::vector<CredentialInfo>> hosts = registry->ListHostCredentials();
  ASSERT_TRUE(hosts.ok()) << hosts.error();
  ASSERT_EQ(hosts->size(), 1u);
  EXPECT_EQ(hosts->front().serial, "0b01");
  Result<std::vector<CredentialInfo>> readers = registry->ListReaderCredentials();
  ASSERT_TRUE(readers.ok()) << readers.error();
  ASSERT_EQ(readers->size(), 2u);
  EXPECT_EQ((*readers)[0].serial, "0b03");
  EXPECT_THAT((*readers)[0].targets, ElementsAre("web02"));
  EXPECT_TRUE((*readers)[0].read);
  EXPECT_EQ((*readers)[1].serial, "0b02");
  EXPECT_EQ((*readers)[1].host, "WEB02");
  // Only the host's stream has anything to end.
  Result<std::vector<CredentialInfo>> since = registry->RevokedSince(kNow);
  ASSERT_TRUE(since.ok()) << since.error();
  ASSERT_EQ(since->size(), 1u);
  EXPECT_EQ(since->front().serial, "0b01");
}

// Issue 34, 7: a reader's credential counted as the host's, so `hosts revoke web03`, where only
// a reader is enrolled as web03, revoked the reader and said it revoked a host's credential. It
// is refused, naming the command that revokes a reader.
TEST(EnrollmentRegistryTest, AReadersCredentialDoesNotCountAsAHostsOfItsName) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  ASSERT_TRUE(registry
                  ->RecordCredential({.serial = "0c01",
                                      .host = "web03",
                                      .token_id = "1234abcd",
                                      .issued = kNow,
                                      .expires = kNow + hours(24),
                                      .revoked = std::nullopt,
                                      .read = true})
                  .ok());
  Result<int> revoked = registry->RevokeHost("Web03", kNow + minutes(1));
  EXPECT_EQ(revoked.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(revoked.error(),
            "no certificates were issued to host Web03, only to a reader of that name: "
            "perfhive-server readers revoke Web03 revokes a reader's");
  EXPECT_EQ(registry->FindCredential("0c01")->revoked, std::nullopt);
}

// Proves: `readers revoke` revokes a reader's credentials (case ignored) and no host's of the
// same name, and the revocation is among those the server's pass over open calls sees, as a
// reader's; a name only a host holds is refused, naming `hosts revoke`, and an unknown one is not
// found.
TEST(EnrollmentRegistryTest, RevokingAReaderSparesAHostOfItsName) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  auto record = [&](std::string serial, std::string name, bool read) {
    return registry->RecordCredential({.serial = std::move(serial),
                                       .host = std::move(name),
                                       .token_id = "1234abcd",
                                       .issued = kNow,
                                       .expires = kNow + hours(24),
                                       .revoked = std::nullopt,
                                       .read = read});
  };
  ASSERT_TRUE(record("0d01", "web04", false).ok());
  ASSERT_TRUE(record("0d02", "web04", true).ok());
  ASSERT_TRUE(record("0d03", "web05", false).ok());

  Result<int> revoked = registry->RevokeReader("WEB04", kNow + minutes(1));
  ASSERT_TRUE(revoked.ok()) << revoked.error();
  EXPECT_EQ(*revoked, 1);
  EXPECT_EQ(registry->FindCredential("0d02")->revoked, kNow + minutes(1));
  EXPECT_EQ(registry->FindCredential("0d01")->revoked, std::nullopt);
  revoked = registry->RevokeReader("web04", kNow + minutes(2));
  ASSERT_TRUE(revoked.ok()) << revoked.error();
  EXPECT_EQ(*revoked, 0);
  EXPECT_EQ(registry->FindCredential("0d02")->revoked, kNow + minutes(1));

  Result<std::vector<CredentialInfo>> since = registry->RevokedSince(kNow);
  ASSERT_TRUE(since.ok()) << since.error();
  ASSERT_EQ(since->size(), 1u);
  EXPECT_EQ(since->front().serial, "0d02");
  EXPECT_EQ(since->front().host, "web04");
  EXPECT_TRUE(since->front().read);

  Result<int> host = registry->RevokeReader("web05", kNow);
  EXPECT_EQ(host.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(host.error(),
            "no certificates were issued to reader web05, only to a host of that name: "
            "perfhive-server hosts revoke web05 revokes a host's");
  EXPECT_EQ(registry->FindCredential("0d03")->revoked, std::nullopt);
  Result<int> unknown = registry->RevokeReader("bob", kNow);
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.error(), "no certificates were issued to reader bob");
}

TEST(EnrollmentRegistryTest, KeepsEverythingAcrossReopening) {
  TempDir dir;
  std::string token;
  {
    std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
    ASSERT_NE(registry, nullptr);
    token = Create(*registry, Spec({"web*"}, 2, hours(1)));
    ASSERT_TRUE(registry->Redeem(token, "web01", kNow).ok());
  }
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  Result<EnrollmentTokenInfo> redeemed = registry->Redeem(token, "web02", kNow);
  ASSERT_TRUE(redeemed.ok()) << redeemed.error();
  EXPECT_EQ(redeemed->uses_left, 0);
  EXPECT_EQ(redeemed->expires, kNow + hours(1));
}

// Proves: a poller enrolls for the hosts it polls, each checked against the token's patterns
// (a target no pattern allows is refused naming it, and nothing is spent); its credential keeps
// them in order; revoking one polled host revokes the poller's credential.
// A reader's token redeemed with poller targets gave a reader's certificate carrying targets that
// nothing honours. It is refused, and the token's one use is not spent.
TEST(EnrollmentRegistryTest, AReadersTokenWithPollerTargetsIsRefusedWithoutSpendingAUse) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path());
  ASSERT_NE(registry, nullptr);
  EnrollmentTokenSpec spec = Spec({"*"}, 1);
  spec.read = true;
  std::string token = Create(*registry, spec);
  Result<EnrollmentTokenInfo> refused = registry->Redeem(token, "alice", kNow, {"web02"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.error(), HasSubstr("a reader polls no hosts"));
  Result<EnrollmentTokenInfo> redeemed = registry->Redeem(token, "alice", kNow);
  ASSERT_TRUE(redeemed.ok()) << redeemed.error();
  EXPECT_TRUE(redeemed->read);
}

TEST(EnrollmentRegistryTest, APollersTargetsAreCheckedKeptAndRevokedWithIt) {
  TempDir dir;
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path() + "/data");
  ASSERT_NE(registry, nullptr);
  std::string token = Create(*registry, Spec({"poll*", "win*"}, 1));
  ExpectUnauthenticated(registry->Redeem(token, "poller1", kNow, {"win01", "db01"}),
                        "enrollment token " + IdOf(token) +
                            " is not for the polled host db01: its host patterns "
                            "are poll*, win*");
  Result<EnrollmentTokenInfo> bad = registry->Redeem(token, "poller1", kNow, {"not a name"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  Result<EnrollmentTokenInfo> redeemed =
      registry->Redeem(token, "poller1", kNow, {"WIN02", "win01"});
  ASSERT_TRUE(redeemed.ok()) << redeemed.error();  // the one use was not spent by the refusals

  ASSERT_TRUE(registry
                  ->RecordCredential({.serial = "ab12",
                                      .host = "poller1",
                                      .token_id = IdOf(token),
                                      .issued = kNow,
                                      .expires = kNow + hours(24),
                                      .revoked = std::nullopt,
                                      .read = false,
                                      .targets = {"WIN02", "win01"}})
                  .ok());
  Result<CredentialInfo> found = registry->FindCredential("AB12");
  ASSERT_TRUE(found.ok()) << found.error();
  EXPECT_THAT(found->targets, ElementsAre("WIN02", "win01"));

  Result<int> revoked = registry->RevokeHost("win02", kNow + minutes(1));
  ASSERT_TRUE(revoked.ok()) << revoked.error();
  EXPECT_EQ(*revoked, 1);
  found = registry->FindCredential("ab12");
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->revoked.has_value());
  Result<std::vector<CredentialInfo>> listed = registry->ListHostCredentials();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_THAT(listed->front().targets, ElementsAre("WIN02", "win01"));

  // What the server's pass over its open streams asks: revocations from a time on.
  Result<std::vector<CredentialInfo>> since = registry->RevokedSince(kNow);
  ASSERT_TRUE(since.ok()) << since.error();
  ASSERT_EQ(since->size(), 1u);
  EXPECT_EQ(since->front().serial, "ab12");
  EXPECT_EQ(since->front().host, "poller1");
  EXPECT_FALSE(since->front().read);
  since = registry->RevokedSince(kNow + minutes(2));
  ASSERT_TRUE(since.ok()) << since.error();
  EXPECT_TRUE(since->empty());
}

// Proves: a registry made by the first version (no credential_targets) is upgraded on open, its
// credentials kept, and takes pollers' targets afterwards.
TEST(EnrollmentRegistryTest, AVersionOneRegistryIsUpgradedOnOpen) {
  TempDir dir;
  {
    std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path() + "/data");
    ASSERT_NE(registry, nullptr);
    ASSERT_TRUE(registry
                    ->RecordCredential({.serial = "0c0c",
                                        .host = "web01",
                                        .token_id = "1234abcd",
                                        .issued = kNow,
                                        .expires = kNow + hours(24),
                                        .revoked = std::nullopt})
                    .ok());
  }
  {
    Result<std::unique_ptr<SqliteDb>> db = SqliteDb::Open(dir.path() + "/data/pki/enrollment.db");
    ASSERT_TRUE(db.ok()) << db.error();
    ASSERT_TRUE((*db)->Exec("DROP TABLE credential_targets; PRAGMA user_version=1;").ok());
  }
  std::unique_ptr<EnrollmentRegistry> registry = OpenRegistry(dir.path() + "/data");
  ASSERT_NE(registry, nullptr);
  Result<CredentialInfo> kept = registry->FindCredential("0c0c");
  ASSERT_TRUE(kept.ok()) << kept.error();
  EXPECT_EQ(kept->host, "web01");
  EXPECT_TRUE(kept->targets.empty());
  ASSERT_TRUE(registry
                  ->RecordCredential({.serial = "0d0d",
                                      .host = "poller1",
                                      .token_id = "1234abcd",
                                      .issued = kNow,
                                      .expires = kNow + hours(24),
                                      .revoked = std::nullopt,
                                      .read = false,
                                      .targets = {"win01"}})
                  .ok());
  EXPECT_THAT(registry->FindCredential("0d0d")->targets, ElementsAre("win01"));
}

}  // namespace
}  // namespace perfhive
