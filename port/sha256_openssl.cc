// SHA-256 through OpenSSL's EVP interface (libcrypto), for Linux and other POSIX builds.

#include <openssl/evp.h>

#include <cstdlib>

#include "port/sha256.h"

namespace perfhive {

namespace {

// EVP calls fail only when memory runs out or the library is broken; there is no useful way to
// go on with a wrong digest, so that ends the process.
void Check(int ok) {
  if (ok != 1) std::abort();
}

}  // namespace

struct Sha256Hasher::State {
  EVP_MD_CTX* context = nullptr;
};

Sha256Hasher::Sha256Hasher() : state_(std::make_unique<State>()) {
  state_->context = EVP_MD_CTX_new();
  if (state_->context == nullptr) std::abort();
  Check(EVP_DigestInit_ex(state_->context, EVP_sha256(), nullptr));
}

Sha256Hasher::~Sha256Hasher() { EVP_MD_CTX_free(state_->context); }

void Sha256Hasher::Update(std::span<const uint8_t> data) {
  Check(EVP_DigestUpdate(state_->context, data.data(), data.size()));
}

Sha256Digest Sha256Hasher::Finish() {
  Sha256Digest digest;
  unsigned int length = 0;
  Check(EVP_DigestFinal_ex(state_->context, digest.data(), &length));
  if (length != digest.size()) std::abort();
  Check(EVP_DigestInit_ex(state_->context, EVP_sha256(), nullptr));
  return digest;
}

Sha256Digest Sha256(std::span<const uint8_t> data) {
  Sha256Digest digest;
  unsigned int length = 0;
  Check(EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr));
  return digest;
}

}  // namespace perfhive
