// The content address of a title database: SHA-256 over a canonical encoding of its language and
// its two lists, so that agents and the server name the same database alike and a fleet of
// identical builds shares one stored copy. The encoding is in docs/wire_protocol.md.

#ifndef PERFHIVE_WIRE_TITLE_DIGEST_H_
#define PERFHIVE_WIRE_TITLE_DIGEST_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "port/sha256.h"

namespace perfhive {

// `language` is the Perflib language id ("009"); `counters` and `helps` are the raw bytes of the
// "Counter" and "Help" lists as the host returned them.
Sha256Digest TitleDigest(std::string_view language, std::span<const uint8_t> counters,
                         std::span<const uint8_t> helps);

}  // namespace perfhive

#endif  // PERFHIVE_WIRE_TITLE_DIGEST_H_
