// TLS files for the export tests' HTTPS servers: a CA and a server certificate for 127.0.0.1 and
// localhost, made in-process by pki's CertificateAuthority (as perfhive-server init makes them)
// and written as PEM files into a temporary folder that goes with the object.

#ifndef PERFHIVE_TESTS_EXPORT_TEST_CERTIFICATES_H_
#define PERFHIVE_TESTS_EXPORT_TEST_CERTIFICATES_H_

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

#include "export/http_server.h"
#include "pki/certificate_authority.h"
#include "tests/support/temporary_folder.h"

namespace perfhive::testing {

class TestCertificates {
 public:
  TestCertificates() : folder_("perfhive-export-tls"), dir_(folder_.path().string()) {
    Result<CertificateAuthority> ca = CertificateAuthority::Create("export test CA", kValid);
    EXPECT_TRUE(ca.ok()) << ca.error();
    if (!ca.ok()) return;
    Result<IssuedCertificate> server =
        ca->IssueServerCertificate({"localhost"}, {"127.0.0.1"}, kValid);
    EXPECT_TRUE(server.ok()) << server.error();
    if (!server.ok()) return;
    Write("ca.pem", ca->CertificatePem());
    Write("server.pem", server->certificate_pem);
    Write("server.key", server->key_pem);
  }

  std::string ca_file() const { return dir_ + "/ca.pem"; }
  std::string cert_file() const { return dir_ + "/server.pem"; }
  std::string key_file() const { return dir_ + "/server.key"; }
  const std::string& dir() const { return dir_; }

  HttpServerOptions Https() const {
    HttpServerOptions options;
    options.tls_cert_file = cert_file();
    options.tls_key_file = key_file();
    return options;
  }

  // Writes `text` as the file `name` of the folder; its path.
  std::string Write(const std::string& name, const std::string& text) const {
    std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

 private:
  static constexpr std::chrono::seconds kValid{24 * 3600};
  TemporaryFolder folder_;
  std::string dir_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_EXPORT_TEST_CERTIFICATES_H_
