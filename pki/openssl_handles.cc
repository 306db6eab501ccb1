#include "pki/openssl_handles.h"

#include <openssl/err.h>
#include <openssl/pem.h>

namespace perfhive {
namespace {

std::string BioText(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(size));
}

BioPtr ReadOnlyBio(std::string_view text) {
  return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

}  // namespace

std::string OpenSslError(std::string_view what) {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return std::string(what);
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return std::string(what) + " (" + text + ")";
}

Result<ChainPtr> ReadCertificates(std::string_view pem) {
  if (pem.size() > (1 << 20)) return Status::InvalidArgument("certificate PEM over 1 MiB");
  BioPtr bio = ReadOnlyBio(pem);
  ChainPtr chain(sk_X509_new_null());
  if (bio == nullptr || chain == nullptr) return Status::Internal(OpenSslError("out of memory"));
  while (X509* certificate = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    sk_X509_push(chain.get(), certificate);
  }
  // The loop ends at the end of the text (PEM_R_NO_START_LINE) or at a damaged certificate.
  unsigned long last = ERR_peek_last_error();
  bool at_end = ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE;
  if (last != 0 && !at_end) {
    return Status::InvalidArgument(OpenSslError("a damaged certificate in the PEM text"));
  }
  ERR_clear_error();
  if (sk_X509_num(chain.get()) == 0) {
    return Status::InvalidArgument("no certificate (-----BEGIN CERTIFICATE-----) in the PEM text");
  }
  return chain;
}

Result<KeyPtr> ReadPrivateKey(std::string_view pem) {
  BioPtr bio = ReadOnlyBio(pem);
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) return Status::InvalidArgument(OpenSslError("no readable private key"));
  return key;
}

Result<RequestPtr> ReadVerifiedRequest(std::string_view pem) {
  if (pem.size() > (64 << 10)) {
    return Status::InvalidArgument("the certificate request is over 64 KiB");
  }
  BioPtr bio = ReadOnlyBio(pem);
  RequestPtr request(PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr));
  if (request == nullptr) {
    return Status::InvalidArgument(OpenSslError("no readable certificate request (PEM)"));
  }
  EVP_PKEY* requester_key = X509_REQ_get0_pubkey(request.get());
  if (requester_key == nullptr || X509_REQ_verify(request.get(), requester_key) != 1) {
    ERR_clear_error();
    return Status::InvalidArgument("the certificate request is not signed by its own key");
  }
  return request;
}

std::string CertificatePem(X509* certificate) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), certificate);
  return BioText(bio.get());
}

std::string PrivateKeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  return BioText(bio.get());
}

}  // namespace perfhive
