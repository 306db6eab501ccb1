// Text from outside perfhive (host names, health messages, OS strings, instance names) as it may
// be shown to a person: in a terminal, a log line, a table cell. Such text is data, and data must
// not move the cursor, recolour the terminal, start a forged log line or reorder what follows it
// (bidirectional overrides), and a text of megabytes must not fill a screen or a log.

#ifndef PERFHIVE_PERFDATA_DISPLAY_TEXT_H_
#define PERFHIVE_PERFDATA_DISPLAY_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace perfhive {

// Whether code point `c` is one EscapeForDisplay writes as an escape: C0 and C1 controls, DEL,
// the soft hyphen, the line and paragraph separators, the zero-width and bidirectional
// formatting characters, the byte order mark, the noncharacters U+FFFE/U+FFFF, the interlinear
// annotation controls and the tag characters (which spell text no one sees).
bool IsUnsafeToDisplay(char32_t c);

// `text` with every unsafe code point and every byte that is not valid UTF-8 written as an
// escape: \n, \r and \t for those three, \xNN for other ASCII controls and for invalid bytes,
// \u{XXXX} for the rest. Everything else is kept as it is, backslashes included: PDH paths are
// full of them, and a person reads "\x1B" in a host name as what it is. The result is valid
// UTF-8 without unsafe code points.
std::string EscapeForDisplay(std::string_view text);

// `text` with every byte that is not part of valid UTF-8 replaced by U+FFFD: what a protocol that
// insists on UTF-8 (protobuf's string fields, JSON) can carry of a text stored as it came.
std::string ValidUtf8(std::string_view text);

// At most `max_bytes` of UTF-8 `text`, cut at a character boundary; when cut, followed by
// " ... (N bytes in all)" so a reader knows there was more. The note may take the result up to
// kTruncationNoteBytes past `max_bytes`.
std::string TruncateUtf8(std::string_view text, size_t max_bytes);
inline constexpr size_t kTruncationNoteBytes = 40;  // " ... (" + 20 digits + " bytes in all)"

// The columns a terminal gives `text` (EscapeForDisplay's output): 2 for East Asian wide and
// fullwidth characters, 0 for the common combining marks and variation selectors, 1 for the
// rest, so that tables of names in any script line up. An approximation of wcwidth(3) that
// does not depend on the locale the program runs in.
size_t DisplayWidth(std::string_view text);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_DISPLAY_TEXT_H_
