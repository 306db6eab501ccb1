// CertificateAuthority: one perfhive server's own certificate authority, made by `perfhive-server
// init`: an EC P-256 key and a self-signed certificate, and the certificates it issues (the
// server's; with enrollment, each agent's). A fleet then trusts the server by the CA's
// fingerprint alone (pki/fingerprint.h), and no public CA is involved.

#ifndef PERFHIVE_PKI_CERTIFICATE_AUTHORITY_H_
#define PERFHIVE_PKI_CERTIFICATE_AUTHORITY_H_

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "pki/openssl_handles.h"

namespace perfhive {

// A certificate and its new private key, as PEM.
struct IssuedCertificate {
  std::string certificate_pem;  // the certificate, then the CA's: the chain a TLS peer sends
  std::string key_pem;
};

class CertificateAuthority {
 public:
  // A new CA named `name` (its subject's CN), valid from five minutes ago (clocks differ) for
  // `valid`. It may sign end certificates only (pathlen 0).
  static Result<CertificateAuthority> Create(std::string_view name, std::chrono::seconds valid);
  // A CA from its files; fails when the key is not the certificate's or the certificate is no CA.
  static Result<CertificateAuthority> Load(std::string_view certificate_pem,
                                           std::string_view key_pem);

  std::string CertificatePem() const;
  std::string KeyPem() const;
  // pki/fingerprint.h's hex digits of the CA's certificate.
  std::string Sha256() const;

  // A server certificate for the names and addresses clients dial (subjectAltName; the first
  // DNS name, else address, is its CN), with a new EC P-256 key, valid for `valid`. A malformed
  // address or name is INVALID_ARGUMENT naming it.
  // A client certificate for `host_name` (its CN, whatever the request's subject says) for the
  // key of a certificate signing request (PEM), whose signature must be the key's own; valid
  // for `valid`, for TLS clients only. INVALID_ARGUMENT for a request that is damaged or not
  // signed by its key. Its key_pem is empty: the key stays with the requester.
  Result<IssuedCertificate> IssueClientCertificate(std::string_view request_pem,
                                                   std::string_view host_name,
                                                   std::chrono::seconds valid) const;

  Result<IssuedCertificate> IssueServerCertificate(const std::vector<std::string>& dns_names,
                                                   const std::vector<std::string>& ip_addresses,
                                                   std::chrono::seconds valid) const;

 private:
  CertificateAuthority(X509Ptr certificate, KeyPtr key)
      : certificate_(std::move(certificate)), key_(std::move(key)) {}

  X509Ptr certificate_;
  KeyPtr key_;
};

}  // namespace perfhive

#endif  // PERFHIVE_PKI_CERTIFICATE_AUTHORITY_H_
