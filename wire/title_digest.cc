#include "wire/title_digest.h"

#include "base/byte_order.h"

namespace perfhive {

namespace {

// Each field is preceded by its length, so that no two different (language, counters, helps)
// encode to the same bytes.
void AddField(Sha256Hasher& hasher, std::span<const uint8_t> field) {
  uint8_t length[8];
  StoreU64(length, field.size());
  hasher.Update(length);
  hasher.Update(field);
}

}  // namespace

Sha256Digest TitleDigest(std::string_view language, std::span<const uint8_t> counters,
                         std::span<const uint8_t> helps) {
  static constexpr char kDomain[] = "perfhive title database v1";
  Sha256Hasher hasher;
  hasher.Update({reinterpret_cast<const uint8_t*>(kDomain), sizeof kDomain});  // with its NUL
  AddField(hasher, {reinterpret_cast<const uint8_t*>(language.data()), language.size()});
  AddField(hasher, counters);
  AddField(hasher, helps);
  return hasher.Finish();
}

}  // namespace perfhive
