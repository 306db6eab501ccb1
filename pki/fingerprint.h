// Certificate fingerprints: the SHA-256 of a certificate's DER bytes, which `perfhive-server
// init` prints for its CA and agents and the CLI pin with --ca-sha256, so that no CA file has to
// be copied to every host (as kubeadm's discovery hash and Elastic's CA fingerprint do).

#ifndef PERFHIVE_PKI_FINGERPRINT_H_
#define PERFHIVE_PKI_FINGERPRINT_H_

#include <openssl/x509.h>

#include <string>
#include <string_view>

#include "base/status.h"

namespace perfhive {

// 64 lowercase hex digits.
std::string CertificateSha256(X509* certificate);

// The fingerprint of the first certificate of a PEM text.
Result<std::string> PemCertificateSha256(std::string_view pem);

// A fingerprint as people copy it: 64 hex digits in either case, optionally in pairs separated by
// ':' (as `openssl x509 -fingerprint -sha256` prints it) and optionally after "sha256:"; as 64
// lowercase hex digits, or INVALID_ARGUMENT saying what a fingerprint looks like.
Result<std::string> ParseSha256Fingerprint(std::string_view text);

// How perfhive prints one: "sha256:" and the 64 digits.
std::string FormatSha256Fingerprint(std::string_view hex);

}  // namespace perfhive

#endif  // PERFHIVE_PKI_FINGERPRINT_H_
