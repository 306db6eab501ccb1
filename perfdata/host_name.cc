#include "perfdata/host_name.h"

#include <cstdio>
#include <string>

#include "perfdata/case_folding.h"
#include "perfdata/display_text.h"

namespace perfhive {
namespace {

bool IsSpace(char32_t c) {
  return c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

std::string CodePoint(char32_t c) {
  char text[16];
  std::snprintf(text, sizeof text, "U+%04X", static_cast<unsigned>(c));
  return text;
}

}  // namespace

Status CheckHostName(std::string_view name) {
  auto refuse = [&](const std::string& why) {
    std::string shown = EscapeForDisplay(TruncateUtf8(name, 64));
    return Status::InvalidArgument("host name \"" + shown + "\" is not a computer name: " + why +
                                   "; a host name is 1 to " + std::to_string(kMaxHostNameBytes) +
                                   " bytes of letters, digits, '-', '_' and '.'");
  };
  if (name.empty()) return refuse("it is empty");
  if (name.size() > kMaxHostNameBytes) {
    return refuse("it is " + std::to_string(name.size()) + " bytes long");
  }
  if (name.front() == '-' || name.front() == '.')
    return refuse("it starts with '" + std::string(1, name.front()) + "'");
  if (name.back() == '.') return refuse("it ends with '.'");
  if (name.find("..") != std::string_view::npos) return refuse("it has \"..\"");
  for (size_t at = 0; at < name.size();) {
    const size_t start = at;
    const char32_t c = DecodeNameUnitAt(name, at);
    const std::string where = "byte " + std::to_string(start) + " is ";
    if (c >= kInvalidUtf8Byte) return refuse(where + "not valid UTF-8");
    if (c < 0x80) {
      bool allowed = (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z') ||
                     (c >= U'0' && c <= U'9') || c == U'-' || c == U'_' || c == U'.';
      if (!allowed) {
        std::string what = c < 0x20 || c == 0x7F ? "a control character (" + CodePoint(c) + ")"
                                                 : "'" + std::string(1, static_cast<char>(c)) + "'";
        return refuse(where + what);
      }
    } else if (IsUnsafeToDisplay(c)) {
      return refuse(where + "an invisible or control character (" + CodePoint(c) + ")");
    } else if (IsSpace(c)) {
      return refuse(where + "a space (" + CodePoint(c) + ")");
    }
  }
  return Status();
}

}  // namespace perfhive
