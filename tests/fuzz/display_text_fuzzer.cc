// Feeds arbitrary bytes to what shows outside text to people: EscapeForDisplay must always give
// valid UTF-8 without a code point IsUnsafeToDisplay refuses; TruncateUtf8 must keep valid UTF-8
// valid at any limit; CheckHostName must never crash, and a name it accepts must need no escape.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "perfdata/case_folding.h"
#include "perfdata/display_text.h"
#include "perfdata/host_name.h"

namespace {

// Whether `text` is valid UTF-8, and when `safe`, free of unsafe code points too.
bool IsUtf8(std::string_view text, bool safe) {
  for (size_t at = 0; at < text.size();) {
    const char32_t c = perfhive::DecodeNameUnitAt(text, at);
    if (c >= perfhive::kInvalidUtf8Byte || (safe && perfhive::IsUnsafeToDisplay(c))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte is the truncation limit; the rest is the text.
  const size_t limit = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const std::string shown = perfhive::EscapeForDisplay(text);
  if (!IsUtf8(shown, /*safe=*/true)) std::abort();
  if (perfhive::DisplayWidth(shown) > shown.size()) std::abort();

  const std::string cut = perfhive::TruncateUtf8(text, limit);
  if (text.size() <= limit && cut != text) std::abort();
  if (cut.size() > limit + perfhive::kTruncationNoteBytes) std::abort();
  if (IsUtf8(text, /*safe=*/false) && !IsUtf8(cut, /*safe=*/false)) std::abort();

  if (perfhive::CheckHostName(text).ok() && perfhive::EscapeForDisplay(text) != text) {
    std::abort();
  }
  return 0;
}
