// RandomHex: secrets and identifiers nobody may guess (enrollment tokens, console sessions), drawn
// from OpenSSL's cryptographically secure generator and written in lowercase hexadecimal.

#ifndef PERFHIVE_PKI_RANDOM_HEX_H_
#define PERFHIVE_PKI_RANDOM_HEX_H_

#include <cstddef>
#include <string>

#include "base/status.h"

namespace perfhive {

// `bytes` random bytes (at most 32) as 2 * `bytes` hexadecimal digits; an error if the generator
// failed.
Result<std::string> RandomHex(size_t bytes);

}  // namespace perfhive

#endif  // PERFHIVE_PKI_RANDOM_HEX_H_
