// Owning handles for the OpenSSL objects pki/ uses, so that every early return frees them.

#ifndef PERFHIVE_PKI_OPENSSL_HANDLES_H_
#define PERFHIVE_PKI_OPENSSL_HANDLES_H_

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace perfhive {

struct OpenSslFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
  void operator()(X509* certificate) const { X509_free(certificate); }
  void operator()(X509_REQ* request) const { X509_REQ_free(request); }
  void operator()(X509_STORE* store) const { X509_STORE_free(store); }
  void operator()(X509_STORE_CTX* context) const { X509_STORE_CTX_free(context); }
  void operator()(STACK_OF(X509) * chain) const { sk_X509_pop_free(chain, X509_free); }
};
using BioPtr = std::unique_ptr<BIO, OpenSslFree>;
using KeyPtr = std::unique_ptr<EVP_PKEY, OpenSslFree>;
using X509Ptr = std::unique_ptr<X509, OpenSslFree>;
using RequestPtr = std::unique_ptr<X509_REQ, OpenSslFree>;
using StorePtr = std::unique_ptr<X509_STORE, OpenSslFree>;
using StoreContextPtr = std::unique_ptr<X509_STORE_CTX, OpenSslFree>;
using ChainPtr = std::unique_ptr<STACK_OF(X509), OpenSslFree>;

// OpenSSL's own words for its most recent error (its queue is emptied), after `what`.
std::string OpenSslError(std::string_view what);

// Every certificate of a PEM text, in order; an error when there is none or one is damaged.
Result<ChainPtr> ReadCertificates(std::string_view pem);
// The first private key of a PEM text.
Result<KeyPtr> ReadPrivateKey(std::string_view pem);
// A PEM certificate signing request of at most 64 KiB that is signed by its own key; what is
// wrong with it otherwise (kInvalidArgument).
Result<RequestPtr> ReadVerifiedRequest(std::string_view pem);
std::string CertificatePem(X509* certificate);
std::string PrivateKeyPem(EVP_PKEY* key);

}  // namespace perfhive

#endif  // PERFHIVE_PKI_OPENSSL_HANDLES_H_
