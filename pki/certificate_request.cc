#include "pki/certificate_request.h"

#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cctype>

#include "pki/openssl_handles.h"

namespace perfhive {

namespace {

// A PKCS#10 request naming `host_name`, for `key` and signed with it.
Result<std::string> RequestPem(EVP_PKEY* key, std::string_view host_name) {
  std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> request(X509_REQ_new(), X509_REQ_free);
  std::string name(host_name);
  if (request == nullptr ||
      !X509_NAME_add_entry_by_txt(X509_REQ_get_subject_name(request.get()), "CN", MBSTRING_UTF8,
                                  reinterpret_cast<const unsigned char*>(name.c_str()), -1, -1,
                                  0) ||
      !X509_REQ_set_pubkey(request.get(), key) ||
      X509_REQ_sign(request.get(), key, EVP_sha256()) == 0) {
    return Status::Internal(OpenSslError("cannot make a certificate request for " + name));
  }
  BioPtr out(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509_REQ(out.get(), request.get());
  char* data = nullptr;
  long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

}  // namespace

Result<KeyAndRequest> MakeKeyAndRequest(std::string_view host_name) {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (key == nullptr) return Status::Internal(OpenSslError("cannot make an EC P-256 key"));
  Result<std::string> request = RequestPem(key.get(), host_name);
  if (!request.ok()) return request.status();
  return KeyAndRequest{.key_pem = PrivateKeyPem(key.get()),
                       .request_pem = std::move(request).value()};
}

Result<std::string> MakeRequestForKey(std::string_view key_pem, std::string_view host_name) {
  Result<KeyPtr> key = ReadPrivateKey(key_pem);
  if (!key.ok()) return key.status();
  return RequestPem(key->get(), host_name);
}

Result<CertificateSubject> DescribeCertificate(std::string_view pem) {
  Result<ChainPtr> chain = ReadCertificates(pem);
  if (!chain.ok()) return chain.status();
  X509* certificate = sk_X509_value(chain->get(), 0);
  CertificateSubject subject;
  char common_name[256] = {};
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName, common_name,
                                sizeof common_name) > 0) {
    subject.common_name = common_name;
  }
  std::unique_ptr<BIGNUM, decltype(&BN_free)> serial(
      ASN1_INTEGER_to_BN(X509_get0_serialNumber(certificate), nullptr), BN_free);
  if (serial == nullptr) return Status::InvalidArgument(OpenSslError("no serial number"));
  char* hex = BN_bn2hex(serial.get());
  for (char* c = hex; *c != '\0'; ++c) {
    subject.serial += static_cast<char>(std::tolower(static_cast<unsigned char>(*c)));
  }
  OPENSSL_free(hex);
  // Seconds from the epoch to the expiry, without timegm (which MinGW lacks).
  std::unique_ptr<ASN1_TIME, decltype(&ASN1_TIME_free)> epoch(ASN1_TIME_set(nullptr, 0),
                                                              ASN1_TIME_free);
  int days = 0;
  int seconds = 0;
  if (epoch == nullptr ||
      ASN1_TIME_diff(&days, &seconds, epoch.get(), X509_get0_notAfter(certificate)) != 1) {
    return Status::InvalidArgument(OpenSslError("no readable expiry"));
  }
  subject.not_after =
      std::chrono::system_clock::time_point(std::chrono::seconds(int64_t{days} * 86400 + seconds));
  return subject;
}

Status VerifyCertificateRequest(std::string_view request_pem) {
  Result<RequestPtr> request = ReadVerifiedRequest(request_pem);
  return request.ok() ? Status() : request.status();
}

}  // namespace perfhive
