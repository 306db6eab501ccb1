// Trusting a server by its CA's fingerprint (--ca-sha256) rather than by a CA file: the TLS
// handshake's own verification is replaced by VerifyPinnedChain, which accepts the server's
// certificate only when it chains to a CA, sent with it, whose SHA-256 is the pinned one. A
// man in the middle with a certificate from any other CA, public ones included, is refused.

#ifndef PERFHIVE_PKI_PINNED_CA_H_
#define PERFHIVE_PKI_PINNED_CA_H_

#include <grpcpp/security/credentials.h>

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace perfhive {

// Checks a server's certificate chain (PEM, its own certificate first, as the handshake
// delivered it): one certificate of the chain is a CA whose SHA-256 is `fingerprint` (64 hex
// digits, pki/fingerprint.h); the first one chains to it (signatures, validity dates, use for
// TLS servers); and it names `target` ("HOST", "HOST:PORT" or "[V6]:PORT": a DNS name or an
// address) in its subjectAltName. UNAUTHENTICATED saying which check failed, with the
// fingerprints the chain offered when the pin matched none.
Status VerifyPinnedChain(std::string_view chain_pem, std::string_view fingerprint,
                         std::string_view target);

// What a client (the agent, the CLI) trusts and shows in TLS: the server's CA as PEM text, or
// its fingerprint (a pin), or neither (the system's roots); and for mutual TLS its own
// certificate and key.
struct ClientTls {
  std::string ca_pem;
  std::string ca_sha256;  // as people write it (ParseSha256Fingerprint)
  std::string certificate_pem;
  std::string key_pem;
};

// Channel credentials for `tls`. INVALID_ARGUMENT for a malformed fingerprint, for a CA given
// both ways, or for a certificate without its key.
Result<std::shared_ptr<grpc::ChannelCredentials>> ClientChannelCredentials(const ClientTls& tls);

}  // namespace perfhive

#endif  // PERFHIVE_PKI_PINNED_CA_H_
