#include "pki/certificate_authority.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <cctype>
#include <utility>

#include "pki/fingerprint.h"

namespace perfhive {
namespace {

// Certificates start five minutes back, so that a host whose clock is a little behind the
// server's accepts them at once.
constexpr long kBackdateSeconds = 5 * 60;

Result<KeyPtr> NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (key == nullptr) return Status::Internal(OpenSslError("cannot make an EC P-256 key"));
  return key;
}

// A random 127-bit serial: positive, and unique without a register of the ones issued.
Status SetRandomSerial(X509* certificate) {
  std::unique_ptr<BIGNUM, decltype(&BN_free)> number(BN_new(), BN_free);
  if (number == nullptr || !BN_rand(number.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) ||
      BN_to_ASN1_INTEGER(number.get(), X509_get_serialNumber(certificate)) == nullptr) {
    return Status::Internal(OpenSslError("cannot make a serial number"));
  }
  return Status();
}

Status SetName(X509_NAME* name, std::string_view common_name) {
  std::string cn(common_name);
  if (!X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>("perfhive"), -1, -1, 0) ||
      !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0)) {
    return Status::InvalidArgument(OpenSslError("\"" + cn + "\" cannot be a certificate's name"));
  }
  return Status();
}

// Adds an extension written as openssl.cnf writes it ("critical,CA:TRUE").
Status AddExtension(X509* certificate, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  if (extension == nullptr) {
    return Status::InvalidArgument(
        OpenSslError(std::string(OBJ_nid2sn(nid)) + " \"" + value + "\" is not valid"));
  }
  int added = X509_add_ext(certificate, extension, -1);
  X509_EXTENSION_free(extension);
  if (!added) return Status::Internal(OpenSslError("cannot add an extension"));
  return Status();
}

// A certificate for `subject_key`, named `common_name`, valid for `valid`; its issuer's name is
// its own when `issuer` is null (self-signed).
Result<X509Ptr> NewCertificate(EVP_PKEY* subject_key, std::string_view common_name, X509* issuer,
                               std::chrono::seconds valid) {
  X509Ptr certificate(X509_new());
  if (certificate == nullptr) return Status::Internal(OpenSslError("out of memory"));
  X509_set_version(certificate.get(), X509_VERSION_3);
  if (Status status = SetRandomSerial(certificate.get()); !status.ok()) return status;
  if (Status status = SetName(X509_get_subject_name(certificate.get()), common_name);
      !status.ok()) {
    return status;
  }
  X509_set_issuer_name(certificate.get(), issuer != nullptr
                                              ? X509_get_subject_name(issuer)
                                              : X509_get_subject_name(certificate.get()));
  X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -kBackdateSeconds);
  X509_gmtime_adj(X509_getm_notAfter(certificate.get()), static_cast<long>(valid.count()));
  X509_set_pubkey(certificate.get(), subject_key);
  return certificate;
}

Status Sign(X509* certificate, EVP_PKEY* key) {
  if (X509_sign(certificate, key, EVP_sha256()) == 0) {
    return Status::Internal(OpenSslError("cannot sign the certificate"));
  }
  return Status();
}

}  // namespace

Result<CertificateAuthority> CertificateAuthority::Create(std::string_view name,
                                                          std::chrono::seconds valid) {
  Result<KeyPtr> key = NewKey();
  if (!key.ok()) return key.status();
  Result<X509Ptr> certificate = NewCertificate(key->get(), name, nullptr, valid);
  if (!certificate.ok()) return certificate.status();
  X509* ca = certificate->get();
  for (auto [nid, value] : {std::pair{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                            std::pair{NID_key_usage, "critical,keyCertSign,cRLSign"},
                            std::pair{NID_subject_key_identifier, "hash"}}) {
    if (Status status = AddExtension(ca, ca, nid, value); !status.ok()) return status;
  }
  if (Status status = Sign(ca, key->get()); !status.ok()) return status;
  return CertificateAuthority(std::move(certificate).value(), std::move(key).value());
}

Result<CertificateAuthority> CertificateAuthority::Load(std::string_view certificate_pem,
                                                        std::string_view key_pem) {
  Result<ChainPtr> chain = ReadCertificates(certificate_pem);
  if (!chain.ok()) return chain.status().Prefixed("the CA's certificate: ");
  Result<KeyPtr> key = ReadPrivateKey(key_pem);
  if (!key.ok()) return key.status().Prefixed("the CA's key: ");
  X509Ptr certificate(X509_dup(sk_X509_value(chain->get(), 0)));
  if (X509_check_ca(certificate.get()) == 0) {
    return Status::InvalidArgument("the CA's certificate is not a CA's (no CA:TRUE)");
  }
  if (X509_check_private_key(certificate.get(), key->get()) != 1) {
    ERR_clear_error();
    return Status::InvalidArgument("the CA's key is not the key of the CA's certificate");
  }
  return CertificateAuthority(std::move(certificate), std::move(key).value());
}

std::string CertificateAuthority::CertificatePem() const {
  return perfhive::CertificatePem(certificate_.get());
}

std::string CertificateAuthority::KeyPem() const { return PrivateKeyPem(key_.get()); }

std::string CertificateAuthority::Sha256() const { return CertificateSha256(certificate_.get()); }

Result<IssuedCertificate> CertificateAuthority::IssueClientCertificate(
    std::string_view request_pem, std::string_view host_name, std::chrono::seconds valid) const {
  Result<RequestPtr> request = ReadVerifiedRequest(request_pem);
  if (!request.ok()) return request.status();
  EVP_PKEY* requester_key = X509_REQ_get0_pubkey(request->get());
  Result<X509Ptr> certificate = NewCertificate(requester_key, host_name, certificate_.get(), valid);
  if (!certificate.ok()) return certificate.status();
  X509* client = certificate->get();
  for (auto [nid, value] : {std::pair{NID_basic_constraints, "critical,CA:FALSE"},
                            std::pair{NID_key_usage, "critical,digitalSignature"},
                            std::pair{NID_ext_key_usage, "clientAuth"},
                            std::pair{NID_authority_key_identifier, "keyid:always"}}) {
    if (Status status = AddExtension(client, certificate_.get(), nid, value); !status.ok()) {
      return status;
    }
  }
  if (Status status = Sign(client, key_.get()); !status.ok()) return status;
  return IssuedCertificate{.certificate_pem = perfhive::CertificatePem(client) + CertificatePem(),
                           .key_pem = ""};
}

Result<IssuedCertificate> CertificateAuthority::IssueServerCertificate(
    const std::vector<std::string>& dns_names, const std::vector<std::string>& ip_addresses,
    std::chrono::seconds valid) const {
  if (dns_names.empty() && ip_addresses.empty()) {
    return Status::InvalidArgument("a server certificate needs a name or an address");
  }
  std::string alt_names;
  for (const std::string& name : dns_names) {
    bool plain = !name.empty() && name.size() <= 253;
    for (char c : name) {
      plain = plain &&
              (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '*');
    }
    if (!plain) {
      return Status::InvalidArgument("\"" + name +
                                     "\" is not a DNS name (letters, digits, '-', '.')");
    }
    alt_names += (alt_names.empty() ? "DNS:" : ",DNS:") + name;
  }
  for (const std::string& address : ip_addresses) {
    std::unique_ptr<ASN1_OCTET_STRING, decltype(&ASN1_OCTET_STRING_free)> parsed(
        a2i_IPADDRESS(address.c_str()), ASN1_OCTET_STRING_free);
    if (parsed == nullptr) {
      ERR_clear_error();
      return Status::InvalidArgument("\"" + address + "\" is not an IPv4 or IPv6 address");
    }
    alt_names += (alt_names.empty() ? "IP:" : ",IP:") + address;
  }
  Result<KeyPtr> key = NewKey();
  if (!key.ok()) return key.status();
  const std::string& common_name = dns_names.empty() ? ip_addresses[0] : dns_names[0];
  Result<X509Ptr> certificate = NewCertificate(key->get(), common_name, certificate_.get(), valid);
  if (!certificate.ok()) return certificate.status();
  X509* server = certificate->get();
  for (auto [nid, value] : {std::pair{NID_basic_constraints, std::string("critical,CA:FALSE")},
                            std::pair{NID_key_usage, std::string("critical,digitalSignature")},
                            std::pair{NID_ext_key_usage, std::string("serverAuth")},
                            std::pair{NID_subject_key_identifier, std::string("hash")},
                            std::pair{NID_authority_key_identifier, std::string("keyid:always")},
                            std::pair{NID_subject_alt_name, alt_names}}) {
    if (Status status = AddExtension(server, certificate_.get(), nid, value); !status.ok()) {
      return status;
    }
  }
  if (Status status = Sign(server, key_.get()); !status.ok()) return status;
  return IssuedCertificate{.certificate_pem = perfhive::CertificatePem(server) + CertificatePem(),
                           .key_pem = PrivateKeyPem(key->get())};
}

}  // namespace perfhive
