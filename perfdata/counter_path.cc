#include "perfdata/counter_path.h"

#include <charconv>

#include "perfdata/case_folding.h"

namespace perfhive {
namespace {

constexpr char kEscape = '`';

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The 1-based column of byte `at`, counting characters (UTF-8 code points), not bytes.
size_t ColumnOf(std::string_view text, size_t at) {
  size_t column = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) column += !IsContinuationByte(text[i]);
  return column;
}

Status ErrorAt(std::string_view text, size_t at, std::string_view what) {
  size_t column = ColumnOf(text, at);
  return Status::InvalidArgument("bad counter path at column " + std::to_string(column) + ": " +
                                 std::string(what))
      .WithColumn(column);
}

// The position of the first character of `stops` at or after `at` that is neither escaped nor,
// with `track_parens`, inside parentheses opened after `at`; text.size() if there is none.
size_t FindStop(std::string_view text, size_t at, std::string_view stops, bool track_parens) {
  int depth = 0;
  for (; at < text.size(); ++at) {
    char c = text[at];
    if (c == kEscape) {
      ++at;
      continue;
    }
    if (depth == 0 && stops.find(c) != std::string_view::npos) break;
    if (track_parens && c == '(') ++depth;
    if (track_parens && c == ')') --depth;
  }
  return at < text.size() ? at : text.size();
}

// The position of the last unescaped `wanted` in `text`, or npos.
size_t FindLastUnescaped(std::string_view text, char wanted) {
  size_t found = std::string_view::npos;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == kEscape) {
      ++i;
    } else if (text[i] == wanted) {
      found = i;
    }
  }
  return found;
}

bool AllDigits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// Whether the text after an instance's last unescaped '#' is an #Index: digits alone, or the
// index wildcard "*".
bool IsIndexText(std::string_view text) { return text == "*" || AllDigits(text); }

// Turns path text into a pattern: escapes of path syntax are dropped ("`/" is "/"), those of
// pattern syntax stay ("`*", "``"), and a lone backtick at the end becomes "``".
std::string Unescape(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != kEscape) {
      out += c;
    } else if (i + 1 == raw.size()) {
      out += "``";
    } else {
      char next = raw[++i];
      if (next == '*' || next == kEscape) out += kEscape;
      out += next;
    }
  }
  return out;
}

// What a component's text must escape where it stands in a path.
struct Specials {
  std::string_view always;       // escaped wherever they appear
  bool parens = false;           // '(' and ')', unless they balance
  bool index_like_hash = false;  // a '#' followed by what would read as an #Index
};

// Appends `pattern` to `out`, escaping what would end or split it where it stands and nothing
// else, so names print as PDH prints them whenever that is unambiguous. Escape pairs already in
// the pattern ("`*", "``") are copied as they are.
void AppendEscaped(std::string& out, std::string_view pattern, const Specials& specials) {
  bool balanced = true;
  int depth = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == kEscape) {
      ++i;
    } else if (pattern[i] == '(' || pattern[i] == ')') {
      depth += pattern[i] == '(' ? 1 : -1;
      balanced = balanced && depth >= 0;
    }
  }
  bool escape_parens = specials.parens && !(balanced && depth == 0);
  size_t index_hash = std::string_view::npos;
  if (specials.index_like_hash) {
    size_t hash = FindLastUnescaped(pattern, '#');
    if (hash != std::string_view::npos && IsIndexText(pattern.substr(hash + 1))) index_hash = hash;
  }
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == kEscape) {
      out += kEscape;
      out += i + 1 < pattern.size() ? pattern[++i] : kEscape;
      continue;
    }
    bool special = specials.always.find(c) != std::string_view::npos ||
                   (escape_parens && (c == '(' || c == ')')) || i == index_hash;
    if (special) out += kEscape;
    out += c;
  }
}

// Reads "(Parent/Instance#Index)" starting at the '(' at `at`; leaves `at` after the ')'.
Status ParseInstancePart(std::string_view text, size_t& at, CounterPath& path) {
  size_t open = at++;
  size_t close = FindStop(text, at, ")", true);
  if (close == text.size()) return ErrorAt(text, open, "'(' is never closed: expected ')'");
  std::string_view raw = text.substr(at, close - at);
  size_t instance_at = at;
  at = close + 1;
  if (size_t slash = FindStop(raw, 0, "/", true); slash < raw.size()) {
    path.parent = Unescape(raw.substr(0, slash));
    raw.remove_prefix(slash + 1);
    instance_at += slash + 1;
  }
  // A '#' is an index only when digits alone or "*" follow it: "foo#bar" is a name.
  if (size_t hash = FindLastUnescaped(raw, '#');
      hash != std::string_view::npos && IsIndexText(raw.substr(hash + 1))) {
    std::string_view index_text = raw.substr(hash + 1);
    if (index_text == "*") {
      path.any_index = true;
    } else {
      uint32_t index = 0;
      const char* last = index_text.data() + index_text.size();
      auto [end, error] = std::from_chars(index_text.data(), last, index);
      if (error != std::errc() || end != last) {
        return ErrorAt(text, instance_at + hash + 1,
                       "expected an #Index below 4294967296 (write `# for a '#' in the name)");
      }
      path.index = index;
    }
    raw = raw.substr(0, hash);
  }
  path.instance = Unescape(raw);
  return Status();
}

}  // namespace

std::string PointAtColumn(std::string_view text, size_t column) {
  std::string shown;
  shown.reserve(text.size());
  // Control characters would break the line or move the caret: show them as '?'.
  for (char c : text) shown += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
  return "  " + shown + "\n  " + std::string(column > 0 ? column - 1 : 0, ' ') + "^";
}

Status WithPathDisplay(const Status& error, std::string_view text) {
  if (!error.column()) return error;
  return Status(error.code(), error.message() + "\n" + PointAtColumn(text, *error.column()))
      .WithColumn(*error.column());
}

Result<CounterPath> ParseCounterPath(std::string_view text) {
  if (text.empty()) return Status::InvalidArgument("bad counter path: empty").WithColumn(1);
  if (text[0] != '\\') return ErrorAt(text, 0, "expected '\\' to start the path");
  CounterPath path;
  size_t at = 1;
  if (at < text.size() && text[at] == '\\') {
    ++at;
    size_t end = FindStop(text, at, "\\", false);
    if (end == at) return ErrorAt(text, at, "expected a machine name after \"\\\\\"");
    if (end == text.size()) {
      return ErrorAt(text, end, "expected '\\' and an object after the machine");
    }
    path.machine = Unescape(text.substr(at, end - at));
    at = end + 1;
  }
  size_t object_end = FindStop(text, at, "(\\", false);
  if (object_end == at) return ErrorAt(text, at, "expected an object name");
  path.object = Unescape(text.substr(at, object_end - at));
  at = object_end;
  if (at < text.size() && text[at] == '(') {
    if (Status status = ParseInstancePart(text, at, path); !status.ok()) return status;
  }
  if (at >= text.size() || text[at] != '\\') {
    return ErrorAt(text, at, "expected '\\' and a counter name after the object");
  }
  ++at;
  if (at == text.size()) return ErrorAt(text, at, "expected a counter name");
  path.counter = Unescape(text.substr(at));
  return path;
}

std::string FormatCounterPath(const CounterPath& path) {
  std::string text;
  text.reserve(path.machine.size() + path.object.size() + path.counter.size() +
               path.parent.value_or("").size() + path.instance.value_or("").size() + 24);
  if (!path.machine.empty()) {
    text += "\\\\";
    AppendEscaped(text, path.machine, {.always = "\\"});
  }
  text += '\\';
  AppendEscaped(text, path.object, {.always = "(\\"});
  if (path.instance || path.parent || path.index || path.any_index) {
    text += '(';
    // The first '/' ends the parent, so a '/' in the instance needs no escape after a parent.
    if (path.parent) {
      AppendEscaped(text, *path.parent, {.always = "/", .parens = true});
      text += '/';
    }
    AppendEscaped(text, path.instance.value_or(""),
                  {.always = path.parent ? "" : "/", .parens = true, .index_like_hash = true});
    if (path.any_index) {
      text += "#*";
    } else if (path.index) {
      text += '#';
      text += std::to_string(*path.index);
    }
    text += ')';
  }
  // The counter runs to the end of the path: nothing in it needs escaping.
  text += '\\';
  AppendEscaped(text, path.counter, {});
  return text;
}

std::string EscapePattern(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '*' || c == kEscape) out += kEscape;
    out += c;
  }
  return out;
}

bool HasWildcard(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == kEscape) {
      ++i;
    } else if (pattern[i] == '*') {
      return true;
    }
  }
  return false;
}

NamePattern::NamePattern(std::string_view pattern) {
  units_.reserve(pattern.size());
  for (size_t i = 0; i < pattern.size();) {
    if (pattern[i] == '*') {
      units_.push_back(kStar);
      ++i;
      continue;
    }
    if (pattern[i] == kEscape && i + 1 < pattern.size()) ++i;
    units_.push_back(NextFoldedNameUnit(pattern, i));
  }
}

bool NamePattern::matches_everything() const {
  for (char32_t unit : units_) {
    if (unit != kStar) return false;
  }
  return !units_.empty();
}

bool NamePattern::has_wildcard() const {
  for (char32_t unit : units_) {
    if (unit == kStar) return true;
  }
  return false;
}

// Greedy matching that backtracks to the last star: O(pattern × name) at worst. `n` and `mark`
// are byte positions in the name, always at the start of a unit.
bool NamePattern::Matches(std::string_view name) const {
  size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < units_.size() && units_[p] == kStar) {
      star = p++;
      mark = n;
      continue;
    }
    size_t next = n;
    if (p < units_.size() && units_[p] == NextFoldedNameUnit(name, next)) {
      ++p;
      n = next;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      DecodeNameUnitAt(name, mark);  // the star takes one more unit
      n = mark;
    } else {
      return false;
    }
  }
  while (p < units_.size() && units_[p] == kStar) ++p;
  return p == units_.size();
}

bool MatchesPattern(std::string_view pattern, std::string_view name) {
  return NamePattern(pattern).Matches(name);
}

}  // namespace perfhive
