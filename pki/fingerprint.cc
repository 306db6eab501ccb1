#include "pki/fingerprint.h"

#include <openssl/evp.h>

#include <cctype>

#include "pki/openssl_handles.h"

namespace perfhive {

std::string CertificateSha256(X509* certificate) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  X509_digest(certificate, EVP_sha256(), digest, &size);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return hex;
}

Result<std::string> PemCertificateSha256(std::string_view pem) {
  Result<ChainPtr> chain = ReadCertificates(pem);
  if (!chain.ok()) return chain.status();
  return CertificateSha256(sk_X509_value(chain->get(), 0));
}

Result<std::string> ParseSha256Fingerprint(std::string_view text) {
  std::string_view digits = text;
  if (digits.size() >= 7 &&
      (digits.substr(0, 7) == "sha256:" || digits.substr(0, 7) == "SHA256:")) {
    digits.remove_prefix(7);
  }
  std::string hex;
  for (size_t i = 0; i < digits.size(); ++i) {
    char c = digits[i];
    // Separators only between pairs: "ab:cd", never "a:bcd".
    if (c == ':' && hex.size() % 2 == 0 && !hex.empty() && i + 1 < digits.size()) continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) {
      hex.clear();
      break;
    }
    hex += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (hex.size() != 64) {
    return Status::InvalidArgument(
        "\"" + std::string(text.substr(0, 120)) +
        "\" is not a SHA-256 fingerprint: give the 64 hex digits perfhive-server init printed "
        "(sha256:... ; AB:CD:... as openssl prints it also does)");
  }
  return hex;
}

std::string FormatSha256Fingerprint(std::string_view hex) { return "sha256:" + std::string(hex); }

}  // namespace perfhive
