#include "pki/certificate_authority.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "pki/fingerprint.h"
#include "pki/pinned_ca.h"

#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#endif

namespace perfhive {
namespace {

using std::chrono::hours;
using ::testing::HasSubstr;

#ifndef _WIN32
// What OpenSSL's own command line says about files: the judge of certificates this test did not
// write itself.
class OpenSslCommand {
 public:
  OpenSslCommand() {
    std::string pattern = (std::filesystem::temp_directory_path() / "perfhive-pki-XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
  }
  ~OpenSslCommand() { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // Runs `openssl ARGS` and returns its standard output and error, and its exit code.
  std::pair<std::string, int> Run(const std::string& args) {
    FILE* pipe = popen(("openssl " + args + " 2>&1").c_str(), "r");
    std::string out;
    char buffer[4096];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    int status = pclose(pipe);
    return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
  }

 private:
  std::string dir_;
};

TEST(CertificateAuthorityTest, OpenSslVerifiesTheServerCertificateAndAgreesOnTheFingerprint) {
  if (access("/usr/bin/openssl", X_OK) != 0) {
    FAIL() << "/usr/bin/openssl is missing (package openssl; scripts/install-deps.sh)";
  }
  Result<CertificateAuthority> ca = CertificateAuthority::Create("perfhive CA test", hours(24));
  ASSERT_TRUE(ca.ok()) << ca.error();
  Result<IssuedCertificate> server =
      ca->IssueServerCertificate({"central.example", "localhost"}, {"10.0.0.5", "::1"}, hours(24));
  ASSERT_TRUE(server.ok()) << server.error();

  OpenSslCommand openssl;
  std::string ca_file = openssl.Write("ca.pem", ca->CertificatePem());
  std::string server_file = openssl.Write("server.pem", server->certificate_pem);
  auto [verified, verify_code] =
      openssl.Run("verify -purpose sslserver -CAfile " + ca_file + " " + server_file);
  EXPECT_EQ(verify_code, 0) << verified;
  EXPECT_THAT(verified, HasSubstr(": OK"));

  auto [names, names_code] = openssl.Run("x509 -noout -ext subjectAltName -in " + server_file);
  EXPECT_EQ(names_code, 0) << names;
  EXPECT_THAT(names, HasSubstr("DNS:central.example, DNS:localhost, IP Address:10.0.0.5, "
                               "IP Address:0:0:0:0:0:0:0:1"));
  auto [constraints, _] = openssl.Run("x509 -noout -ext basicConstraints,keyUsage -in " + ca_file);
  EXPECT_THAT(constraints, HasSubstr("CA:TRUE, pathlen:0"));
  EXPECT_THAT(constraints, HasSubstr("Certificate Sign, CRL Sign"));

  auto [fingerprint, fingerprint_code] =
      openssl.Run("x509 -noout -fingerprint -sha256 -in " + ca_file);
  ASSERT_EQ(fingerprint_code, 0) << fingerprint;
  std::string printed = fingerprint.substr(fingerprint.find('=') + 1);
  while (!printed.empty() && (printed.back() == '\n' || printed.back() == '\r')) printed.pop_back();
  Result<std::string> parsed = ParseSha256Fingerprint(printed);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(*parsed, ca->Sha256());
  EXPECT_EQ(PemCertificateSha256(ca->CertificatePem()).value(), ca->Sha256());

  auto [key_check, key_code] =
      openssl.Run("pkey -noout -in " + openssl.Write("ca.key", ca->KeyPem()));
  EXPECT_EQ(key_code, 0) << key_check;
}
#endif

TEST(CertificateAuthorityTest, ALoadedCaIssuesCertificatesThatChainToIt) {
  Result<CertificateAuthority> made = CertificateAuthority::Create("perfhive CA test", hours(24));
  ASSERT_TRUE(made.ok()) << made.error();
  Result<CertificateAuthority> loaded =
      CertificateAuthority::Load(made->CertificatePem(), made->KeyPem());
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded->Sha256(), made->Sha256());
  Result<IssuedCertificate> server =
      loaded->IssueServerCertificate({"central.example"}, {}, hours(1));
  ASSERT_TRUE(server.ok()) << server.error();
  EXPECT_TRUE(
      VerifyPinnedChain(server->certificate_pem, made->Sha256(), "central.example:7470").ok());
}

TEST(CertificateAuthorityTest, LoadRefusesAKeyThatIsNotTheCertificatesAndAnEndCertificate) {
  Result<CertificateAuthority> one = CertificateAuthority::Create("one", hours(24));
  Result<CertificateAuthority> two = CertificateAuthority::Create("two", hours(24));
  ASSERT_TRUE(one.ok() && two.ok());
  Result<CertificateAuthority> mixed =
      CertificateAuthority::Load(one->CertificatePem(), two->KeyPem());
  ASSERT_FALSE(mixed.ok());
  EXPECT_THAT(mixed.error(), HasSubstr("not the key of the CA's certificate"));

  Result<IssuedCertificate> server = one->IssueServerCertificate({"a.example"}, {}, hours(1));
  ASSERT_TRUE(server.ok());
  Result<CertificateAuthority> end =
      CertificateAuthority::Load(server->certificate_pem, server->key_pem);
  ASSERT_FALSE(end.ok());
  EXPECT_THAT(end.error(), HasSubstr("not a CA's"));
  EXPECT_FALSE(CertificateAuthority::Load("not a certificate", one->KeyPem()).ok());
}

TEST(CertificateAuthorityTest, MalformedNamesAndAddressesAreRefusedNamingThem) {
  Result<CertificateAuthority> ca = CertificateAuthority::Create("ca", hours(24));
  ASSERT_TRUE(ca.ok());
  Result<IssuedCertificate> name = ca->IssueServerCertificate({"bad name"}, {}, hours(1));
  ASSERT_FALSE(name.ok());
  EXPECT_THAT(name.error(), HasSubstr("\"bad name\" is not a DNS name"));
  Result<IssuedCertificate> address = ca->IssueServerCertificate({}, {"10.0.0.300"}, hours(1));
  ASSERT_FALSE(address.ok());
  EXPECT_THAT(address.error(), HasSubstr("\"10.0.0.300\" is not an IPv4 or IPv6 address"));
  EXPECT_FALSE(ca->IssueServerCertificate({}, {}, hours(1)).ok());
}

}  // namespace
}  // namespace perfhive
