// SHA-256 through Windows CNG (bcrypt.dll), for the Windows builds, where there is no OpenSSL.

// clang-format off
#include <windows.h>
#include <bcrypt.h>
// clang-format on

#include <cstdlib>

#include "port/sha256.h"

namespace perfhive {

namespace {

// CNG fails here only when memory runs out or the provider is missing; a wrong digest is worse
// than stopping, so that ends the process.
void Check(NTSTATUS status) {
  if (!BCRYPT_SUCCESS(status)) std::abort();
}

// The SHA-256 provider, opened once for the process (opening is the costly step; the handle is
// safe to share between threads). Older MinGW headers lack the pseudo-handles of Windows 10.
BCRYPT_ALG_HANDLE Provider() {
  static BCRYPT_ALG_HANDLE provider = [] {
    BCRYPT_ALG_HANDLE handle = nullptr;
    Check(BCryptOpenAlgorithmProvider(&handle, BCRYPT_SHA256_ALGORITHM, nullptr, 0));
    return handle;
  }();
  return provider;
}

BCRYPT_HASH_HANDLE NewHash() {
  BCRYPT_HASH_HANDLE hash = nullptr;
  Check(BCryptCreateHash(Provider(), &hash, nullptr, 0, nullptr, 0, 0));
  return hash;
}

}  // namespace

struct Sha256Hasher::State {
  BCRYPT_HASH_HANDLE hash = nullptr;
};

Sha256Hasher::Sha256Hasher() : state_(std::make_unique<State>()) { state_->hash = NewHash(); }

Sha256Hasher::~Sha256Hasher() { BCryptDestroyHash(state_->hash); }

void Sha256Hasher::Update(std::span<const uint8_t> data) {
  // BCryptHashData takes a ULONG length: feed large inputs in pieces.
  constexpr size_t kMaxPiece = 1u << 30;
  while (!data.empty()) {
    size_t piece = data.size() < kMaxPiece ? data.size() : kMaxPiece;
    Check(BCryptHashData(state_->hash, const_cast<PUCHAR>(data.data()), static_cast<ULONG>(piece),
                         0));
    data = data.subspan(piece);
  }
}

Sha256Digest Sha256Hasher::Finish() {
  Sha256Digest digest;
  Check(BCryptFinishHash(state_->hash, digest.data(), static_cast<ULONG>(digest.size()), 0));
  // A finished hash object cannot take more data: start the next message on a new one.
  BCryptDestroyHash(state_->hash);
  state_->hash = NewHash();
  return digest;
}

Sha256Digest Sha256(std::span<const uint8_t> data) {
  Sha256Hasher hasher;
  hasher.Update(data);
  return hasher.Finish();
}

}  // namespace perfhive
