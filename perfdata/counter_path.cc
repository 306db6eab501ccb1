#include "perfdata/counter_path.h"

#include <charconv>
#include <vector>

namespace perfhive {
namespace {

constexpr char kEscape = '`';

Status ErrorAt(std::string_view text, size_t at, std::string_view what) {
  return Status::Error("bad counter path at column " + std::to_string(at + 1) + ": " +
                       std::string(what) + "\n" + PointAtError(text, at));
}

// Reads a component from `at` up to (not including) an unescaped character in `stops` at
// parenthesis depth 0. Escapes other than "`*" and "``" are removed; those two stay (pattern
// syntax). Advances `at` to the stop character (or the end).
std::string ReadComponent(std::string_view text, size_t& at, std::string_view stops,
                          bool track_parens) {
  std::string out;
  int depth = 0;
  while (at < text.size()) {
    char c = text[at];
    if (c == kEscape && at + 1 < text.size()) {
      char next = text[at + 1];
      if (next == '*' || next == kEscape) out += kEscape;
      out += next;
      at += 2;
      continue;
    }
    if (depth == 0 && stops.find(c) != std::string_view::npos) break;
    if (track_parens && c == '(') ++depth;
    if (track_parens && c == ')') --depth;
    out += c;
    ++at;
  }
  return out;
}

// Escapes the characters that would end or split `pattern` where it stands. Parentheses are
// left alone when balanced, and a '#' only when it would read as an #Index, so names print as
// PDH prints them whenever that is unambiguous.
std::string EscapeFor(std::string_view pattern, std::string_view specials,
                      bool parens_may_balance = false) {
  bool balanced = true;
  int depth = 0;
  for (char c : pattern) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) balanced = false;
  }
  balanced = parens_may_balance && balanced && depth == 0;
  size_t index_hash = pattern.rfind('#');
  if (index_hash != std::string_view::npos) {
    std::string_view tail = pattern.substr(index_hash + 1);
    bool digits = !tail.empty() && tail.find_first_not_of("0123456789") == std::string_view::npos;
    if (!digits) index_hash = std::string_view::npos;
  }
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == kEscape && i + 1 < pattern.size()) {  // already pattern-escaped: "`*" or "``"
      out += c;
      out += pattern[++i];
      continue;
    }
    bool special = specials.find(c) != std::string_view::npos;
    if ((c == '(' || c == ')') && balanced) special = false;
    if (c == '#') special = special && i == index_hash;
    if (special) out += kEscape;
    out += c;
  }
  return out;
}

unsigned char Fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

// Decodes a pattern into units: a literal byte, or a star.
struct Unit {
  bool star;
  unsigned char c;
};
std::vector<Unit> Units(std::string_view pattern) {
  std::vector<Unit> units;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == kEscape && i + 1 < pattern.size()) {
      units.push_back({false, static_cast<unsigned char>(pattern[++i])});
    } else if (pattern[i] == '*') {
      units.push_back({true, 0});
    } else {
      units.push_back({false, static_cast<unsigned char>(pattern[i])});
    }
  }
  return units;
}

// Latin-1 upper-case letters in UTF-8 (C3 80..C3 9E, not × C3 97) fold to lower case.
std::string FoldUtf8(std::string_view text) {
  std::string out(text);
  for (size_t i = 0; i < out.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    out[i] = static_cast<char>(Fold(c));
    if (c == 0xC3 && i + 1 < out.size()) {
      unsigned char next = static_cast<unsigned char>(out[i + 1]);
      if (next >= 0x80 && next <= 0x9E && next != 0x97) out[i + 1] = static_cast<char>(next + 0x20);
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string PointAtError(std::string_view text, size_t column) {
  return "  " + std::string(text) + "\n  " + std::string(column, ' ') + "^";
}

Result<CounterPath> ParseCounterPath(std::string_view text) {
  CounterPath path;
  size_t at = 0;
  if (text.empty()) return Status::Error("bad counter path: empty");
  if (text[0] != '\\') return ErrorAt(text, 0, "expected '\\' to start the path");
  if (text.size() > 1 && text[1] == '\\') {
    at = 2;
    path.machine = ReadComponent(text, at, "\\", false);
    if (path.machine.empty()) return ErrorAt(text, at, "expected a machine name after \"\\\\\"");
    if (at >= text.size())
      return ErrorAt(text, at, "expected '\\' and an object after the machine");
  }
  ++at;  // the '\' before the object
  size_t object_at = at;
  path.object = ReadComponent(text, at, "(\\", false);
  if (path.object.empty()) return ErrorAt(text, object_at, "expected an object name");
  if (at < text.size() && text[at] == '(') {
    size_t open = at++;
    size_t instance_at = at;
    std::string instance = ReadComponent(text, at, ")", true);
    if (at >= text.size()) return ErrorAt(text, open, "'(' is never closed: expected ')'");
    ++at;  // ')'
    // Parent: up to the first unescaped '/'. Re-read the raw part to find unescaped separators.
    std::string_view raw = text.substr(instance_at, at - 1 - instance_at);
    size_t split = 0;
    std::string parent_text = ReadComponent(raw, split, "/", true);
    std::string rest = instance;
    if (split < raw.size()) {
      path.parent = parent_text;
      size_t after = split + 1;
      rest = ReadComponent(raw, after, "", true);
      raw = raw.substr(split + 1);
    }
    // Index: an unescaped '#' followed only by digits at the end.
    size_t hash = std::string_view::npos;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == kEscape) {
        ++i;
      } else if (raw[i] == '#') {
        hash = i;
      }
    }
    // A '#' whose tail is not all digits is part of the name ("foo#bar"), as in process names.
    std::string_view digits =
        hash == std::string_view::npos ? std::string_view() : raw.substr(hash + 1);
    uint32_t index = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (!digits.empty() && ec == std::errc() && end == digits.data() + digits.size()) {
      path.index = index;
      std::string_view head = raw.substr(0, hash);
      size_t zero = 0;
      rest = ReadComponent(head, zero, "", true);
    }
    path.instance = rest;
    if (path.instance->empty() && !path.index) {
      return ErrorAt(text, instance_at, "expected an instance name inside '(' ')'");
    }
  }
  if (at >= text.size() || text[at] != '\\') {
    return ErrorAt(text, at, "expected '\\' and a counter name after the object");
  }
  ++at;
  size_t counter_at = at;
  path.counter = ReadComponent(text, at, "", false);
  if (path.counter.empty()) return ErrorAt(text, counter_at, "expected a counter name");
  return path;
}

std::string FormatCounterPath(const CounterPath& path) {
  std::string text;
  if (!path.machine.empty()) text += "\\\\" + EscapeFor(path.machine, "\\");
  text += "\\" + EscapeFor(path.object, "(\\");
  if (path.instance || path.parent || path.index) {
    text += "(";
    if (path.parent) text += EscapeFor(*path.parent, "/()#", true) + "/";
    text += EscapeFor(path.instance.value_or(""), "/()#", true);
    if (path.index) text += "#" + std::to_string(*path.index);
    text += ")";
  }
  text += "\\" + path.counter;
  return text;
}

std::string EscapePattern(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '*' || c == kEscape) out += kEscape;
    out += c;
  }
  return out;
}

bool HasWildcard(std::string_view pattern) {
  for (const Unit& unit : Units(pattern)) {
    if (unit.star) return true;
  }
  return false;
}

bool MatchesPattern(std::string_view pattern, std::string_view name) {
  std::vector<Unit> units = Units(FoldUtf8(pattern));
  std::string folded = FoldUtf8(name);
  // Greedy matching with backtracking to the last star.
  size_t p = 0, n = 0, star = std::string::npos, mark = 0;
  while (n < folded.size()) {
    if (p < units.size() && !units[p].star && units[p].c == static_cast<unsigned char>(folded[n])) {
      ++p;
      ++n;
    } else if (p < units.size() && units[p].star) {
      star = p++;
      mark = n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < units.size() && units[p].star) ++p;
  return p == units.size();
}

}  // namespace perfhive
