// SHA-256, the digest perfhive uses wherever bytes are addressed by content or checked for
// integrity (title databases, raw snapshots). A narrow seam over the platform's library:
// OpenSSL's libcrypto on Linux (sha256_openssl.cc), Windows CNG on Windows (sha256_bcrypt.cc),
// so that portable code never includes either.

#ifndef PERFHIVE_PORT_SHA256_H_
#define PERFHIVE_PORT_SHA256_H_

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace perfhive {

using Sha256Digest = std::array<uint8_t, 32>;

// The digest of `data` in one call.
Sha256Digest Sha256(std::span<const uint8_t> data);

// Hashes bytes given in pieces, for content that is not one contiguous buffer.
class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(std::span<const uint8_t> data);
  // The digest of everything given so far; the hasher starts over afterwards.
  Sha256Digest Finish();

 private:
  struct State;  // the platform library's context
  std::unique_ptr<State> state_;
};

// Lower-case hexadecimal, two digits a byte ("ba7816bf...").
std::string ToHex(std::span<const uint8_t> bytes);

}  // namespace perfhive

#endif  // PERFHIVE_PORT_SHA256_H_
