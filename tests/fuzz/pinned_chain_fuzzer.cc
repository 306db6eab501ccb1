// Feeds arbitrary bytes to what reads a server's certificates during the handshake of a pinned
// connection (--ca-sha256): VerifyPinnedChain must refuse or accept without crashing or leaking,
// and accept only a chain holding a CA with the pin. Input: 64 characters of pin, then the chain
// as PEM; the seeds (pinned_chain_seeds.cc) are real chains with their CAs' pins. The whole input
// also goes to ParseSha256Fingerprint, which must give 64 lowercase hex digits or an error.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "pki/fingerprint.h"
#include "pki/pinned_ca.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  perfhive::Result<std::string> parsed = perfhive::ParseSha256Fingerprint(input);
  if (parsed.ok()) {
    if (parsed->size() != 64) std::abort();
    for (char c : *parsed) {
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) std::abort();
    }
  }
  if (size < 64) return 0;
  const std::string_view pin = input.substr(0, 64);
  const std::string_view chain = input.substr(64);
  perfhive::Status verified = perfhive::VerifyPinnedChain(chain, pin, "localhost:7470");
  if (verified.ok() && chain.find("-----BEGIN CERTIFICATE-----") == std::string_view::npos) {
    std::abort();
  }
  return 0;
}
