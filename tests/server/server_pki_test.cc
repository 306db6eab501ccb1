#include "server/enrollment/server_pki.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "pki/fingerprint.h"
#include "pki/pinned_ca.h"
#include "server/app/server_config.h"
#include "tests/store/store_test_util.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

std::string Read(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = Env::Default().ReadFile(path);
  EXPECT_TRUE(bytes.ok()) << path;
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : "";
}

InitOptions Options(const std::string& dir, std::vector<std::string> names,
                    std::vector<std::string> addresses = {}) {
  InitOptions options;
  options.data_dir = dir;
  options.names = std::move(names);
  options.addresses = std::move(addresses);
  return options;
}

// The fingerprint init printed: the line after "pin (--ca-sha256):".
std::string PrintedFingerprint(const std::string& out) {
  size_t at = out.find("sha256:");
  return at == std::string::npos ? "" : out.substr(at, 7 + 64);
}

TEST(ServerPkiTest, InitMakesACaAndACertificateForTheNamesWithKeysForTheOwnerOnly) {
  TempDir dir;
  std::ostringstream out;
  Status made =
      InitServerPki(Env::Default(), Options(dir.path(), {"central.example"}, {"10.0.0.5"}), out);
  ASSERT_TRUE(made.ok()) << made.message();
  ServerPkiPaths paths = PkiPaths(dir.path());
  std::string fingerprint = PrintedFingerprint(out.str());
  EXPECT_EQ(fingerprint,
            FormatSha256Fingerprint(PemCertificateSha256(Read(paths.ca_certificate)).value()));
  EXPECT_THAT(out.str(), HasSubstr("made a new CA"));
  for (const char* target : {"central.example:7470", "10.0.0.5:7470", "localhost:7470",
                             "127.0.0.1:7470", "[::1]:7470"}) {
    Status verified = VerifyPinnedChain(Read(paths.certificate), fingerprint.substr(7), target);
    EXPECT_TRUE(verified.ok()) << target << ": " << verified.message();
  }
  for (const std::string& key : {paths.ca_key, paths.key}) {
    struct stat info;
    ASSERT_EQ(stat(key.c_str(), &info), 0) << key;
    EXPECT_EQ(info.st_mode & 0777, 0600u) << key;
  }
}

TEST(ServerPkiTest, InitAgainKeepsTheCaAndItsFingerprintAndReplacesTheCertificate) {
  TempDir dir;
  std::ostringstream first;
  ASSERT_TRUE(InitServerPki(Env::Default(), Options(dir.path(), {"old.example"}), first).ok());
  ServerPkiPaths paths = PkiPaths(dir.path());
  std::string ca_before = Read(paths.ca_certificate);
  std::string key_before = Read(paths.ca_key);
  std::ostringstream second;
  ASSERT_TRUE(InitServerPki(Env::Default(), Options(dir.path(), {"new.example"}), second).ok());
  EXPECT_THAT(second.str(), HasSubstr("kept the CA"));
  EXPECT_EQ(PrintedFingerprint(second.str()), PrintedFingerprint(first.str()));
  EXPECT_EQ(Read(paths.ca_certificate), ca_before);
  EXPECT_EQ(Read(paths.ca_key), key_before);
  std::string pin = PrintedFingerprint(first.str()).substr(7);
  EXPECT_TRUE(VerifyPinnedChain(Read(paths.certificate), pin, "new.example:7470").ok());
  EXPECT_FALSE(VerifyPinnedChain(Read(paths.certificate), pin, "old.example:7470").ok());
}

TEST(ServerPkiTest, ABadNameWritesNothing) {
  TempDir dir;
  std::ostringstream out;
  Status made = InitServerPki(Env::Default(), Options(dir.path(), {"central example"}), out);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(made.message(), HasSubstr("\"central example\" is not a DNS name"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/pki"));
  Status nameless = InitServerPki(Env::Default(), Options(dir.path(), {}), out);
  ASSERT_FALSE(nameless.ok());
  EXPECT_THAT(nameless.message(), HasSubstr("give --name NAME"));
}

// Parses a perfhive-server command line as main() does.
Result<ServerConfig> Resolve(std::vector<std::string> args) {
  CLI::App app;
  ServerFlags flags(app);
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return flags.Resolve(Env::Default());
}

TEST(ServerPkiTest, AServerStartedOnAnInitializedDataDirectoryUsesItsCertificate) {
  TempDir dir;
  std::ostringstream out;
  Result<ServerConfig> before = Resolve({"--data", dir.path()});
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->tls_cert, "");
  ASSERT_TRUE(InitServerPki(Env::Default(), Options(dir.path(), {"c.example"}), out).ok());
  Result<ServerConfig> after = Resolve({"--data", dir.path()});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->tls_cert, PkiPaths(dir.path()).certificate);
  EXPECT_EQ(after->tls_key, PkiPaths(dir.path()).key);
  // Given files, and --insecure, win.
  Result<ServerConfig> given =
      Resolve({"--data", dir.path(), "--tls-cert", "/x/s.pem", "--tls-key", "/x/s.key"});
  EXPECT_EQ(given->tls_cert, "/x/s.pem");
  Result<ServerConfig> insecure = Resolve({"--data", dir.path(), "--insecure"});
  EXPECT_EQ(insecure->tls_cert, "");
}

}  // namespace
}  // namespace perfhive
