#include "export/metric_naming.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

#include "perfdata/counter_type.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsUpper(c) || IsLower(c) || IsDigit(c); }

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (IsUpper(c)) c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

// A run of ASCII letters and digits in a PDH name, and whether a '/' came before it ("Bytes
// Received/sec": "sec" follows a slash, so it reads "per second").
struct Word {
  std::string text;
  bool after_slash = false;
};

struct Lexed {
  std::vector<Word> words;
  bool percent = false;  // a '%' anywhere in the name
};

// Apostrophes join ("Processor's" is one word: a lone "s" would read as an abbreviated unit);
// every other character that is not an ASCII letter or digit separates words.
Lexed Lex(std::string_view name) {
  Lexed lexed;
  Word current;
  bool slash = false;
  auto close = [&] {
    if (!current.text.empty()) lexed.words.push_back(std::move(current));
    current = Word{};
  };
  for (char c : name) {
    if (IsAlnum(c)) {
      if (current.text.empty()) {
        current.after_slash = slash;
        slash = false;
      }
      current.text += c;
    } else if (c == '\'') {
      continue;
    } else {
      close();
      if (c == '%') lexed.percent = true;
      if (c == '/') slash = true;
    }
  }
  close();
  return lexed;
}

// Splits CamelCase ("PhysicalDisk" → physical, disk) and an acronym before a word
// ("SQLServer" → sql, server); lower-cases the parts.
void AppendCamelParts(const std::string& word, std::vector<std::string>& tokens) {
  size_t start = 0;
  for (size_t i = 1; i < word.size(); ++i) {
    bool lower_to_upper = IsLower(word[i - 1]) && IsUpper(word[i]);
    // Two lower-case letters after: "SQLServer" splits, "TCPv4" and "IPv6" do not.
    bool acronym_end = IsUpper(word[i - 1]) && IsUpper(word[i]) && i + 2 < word.size() &&
                       IsLower(word[i + 1]) && IsLower(word[i + 2]);
    if (lower_to_upper || acronym_end) {
      tokens.push_back(Lower(word.substr(start, i - start)));
      start = i;
    }
  }
  tokens.push_back(Lower(word.substr(start)));
}

// What a unit word in a counter name does to the metric.
enum class UnitWord { kNone, kSeconds, kPercent, kBytes };

// A value in the word's unit × multiplier / divisor is in the base unit (seconds, bytes).
struct UnitOf {
  UnitWord unit = UnitWord::kNone;
  double multiplier = 1;
  double divisor = 1;
  const char* canonical = nullptr;  // for multiples of bytes: "kbytes", "mbytes", "gbytes"
};

UnitOf ClassifyUnitWord(const std::string& lower) {
  static constexpr double kKi = 1024.0;
  if (lower == "sec" || lower == "secs" || lower == "second" || lower == "seconds") {
    return {UnitWord::kSeconds};
  }
  if (lower == "ms" || lower == "msec" || lower == "millisecond" || lower == "milliseconds") {
    return {UnitWord::kSeconds, 1, 1e3};
  }
  if (lower == "microsecond" || lower == "microseconds") return {UnitWord::kSeconds, 1, 1e6};
  if (lower == "minute" || lower == "minutes") return {UnitWord::kSeconds, 60};
  if (lower == "hour" || lower == "hours") return {UnitWord::kSeconds, 3600};
  if (lower == "percent" || lower == "percentage") return {UnitWord::kPercent};
  if (lower == "kbytes" || lower == "kb" || lower == "kilobytes") {
    return {UnitWord::kBytes, kKi, 1, "kbytes"};
  }
  if (lower == "mbytes" || lower == "mb" || lower == "megabytes") {
    return {UnitWord::kBytes, kKi * kKi, 1, "mbytes"};
  }
  if (lower == "gbytes" || lower == "gb" || lower == "gigabytes") {
    return {UnitWord::kBytes, kKi * kKi * kKi, 1, "gbytes"};
  }
  return {};
}

// "handle" → "handles", "process" → "processes", "entry" → "entries".
std::string Plural(const std::string& word) {
  auto ends = [&](std::string_view suffix) { return word.ends_with(suffix); };
  if (ends("s") || ends("x") || ends("z") || ends("ch") || ends("sh")) return word + "es";
  if (word.size() > 1 && ends("y") &&
      std::string_view("aeiou").find(word[word.size() - 2]) == std::string_view::npos) {
    return word.substr(0, word.size() - 1) + "ies";
  }
  return word + "s";
}

// Tokens promtool reads as abbreviated units wherever they stand in a name.
bool IsAbbreviatedUnit(const std::string& token) {
  static constexpr std::array<std::string_view, 14> kAbbreviations = {
      "s", "ms", "us", "ns", "sec", "b", "kb", "mb", "gb", "tb", "pb", "m", "h", "d"};
  return std::find(kAbbreviations.begin(), kAbbreviations.end(), token) != kAbbreviations.end();
}

std::string Join(const std::vector<std::string>& tokens) {
  std::string joined;
  for (const std::string& token : tokens) {
    if (!joined.empty()) joined += '_';
    joined += token;
  }
  return joined;
}

}  // namespace

MetricName MapMetricName(std::string_view object, std::string_view counter, uint32_t counter_type) {
  MetricName metric;
  std::vector<std::string> tokens = {"pdh"};
  for (const Word& word : Lex(object).words) AppendCamelParts(word.text, tokens);
  size_t counter_start = tokens.size();

  Lexed lexed = Lex(counter);
  bool percent = lexed.percent;
  bool seconds = false;
  bool per_second = false;
  bool previous_kept = false;
  for (const Word& word : lexed.words) {
    UnitOf unit = ClassifyUnitWord(Lower(word.text));
    switch (unit.unit) {
      case UnitWord::kSeconds:
        // "x/sec" is a rate; "sec/x" and a bare "sec" a duration.
        (word.after_slash ? per_second : seconds) = true;
        // Per millisecond is a thousand per second: a rate's factor is the inverse.
        metric.multiplier *= word.after_slash ? unit.divisor : unit.multiplier;
        metric.divisor *= word.after_slash ? unit.multiplier : unit.divisor;
        previous_kept = false;
        continue;
      case UnitWord::kPercent:
        percent = true;
        previous_kept = false;
        continue;
      case UnitWord::kBytes:
        // "Available MBytes" → available_mbytes_as_bytes: in bytes, and apart from "Available
        // Bytes", which the same object has; two series of one name would refuse each other.
        metric.multiplier *= unit.multiplier;
        if (word.after_slash && previous_kept) tokens.push_back("per");
        tokens.insert(tokens.end(), {std::string(unit.canonical), "as", "bytes"});
        previous_kept = true;
        continue;
      case UnitWord::kNone:
        break;
    }
    if (word.after_slash && previous_kept) tokens.push_back("per");
    AppendCamelParts(word.text, tokens);
    previous_kept = true;
  }

  uint32_t display = counter_type & winperf::kDisplayMask;
  std::string conversion;
  if (percent || display == winperf::kDisplayPercent) {
    // Prometheus' convention for a share is a ratio from 0 to 1.
    metric.multiplier = 1;
    metric.divisor = 100;
    tokens.push_back("ratio");
    conversion = ", as a ratio (percent / 100)";
  } else {
    if (seconds || display == winperf::kDisplaySeconds) tokens.push_back("seconds");
    if (per_second || display == winperf::kDisplayPerSec) {
      tokens.push_back("per");
      tokens.push_back("second");
    }
    char factor[32];
    if (metric.multiplier != 1) {
      std::snprintf(factor, sizeof factor, "%.15g", metric.multiplier);
      conversion = std::string(", in base units (value × ") + factor + ")";
    } else if (metric.divisor != 1) {
      std::snprintf(factor, sizeof factor, "%.15g", metric.divisor);
      conversion = std::string(", in base units (value / ") + factor + ")";
    }
  }

  // Suffixes promtool reserves: _count, _sum, _bucket for histograms, _total for counters.
  if (tokens.size() > counter_start) {
    const std::string last = tokens.back();
    if (last == "count") {
      tokens.pop_back();
      if (tokens.size() > counter_start) {
        tokens.back() = Plural(tokens.back());
      } else {
        tokens.push_back("number");
      }
    } else if (last == "total") {
      tokens.pop_back();
      tokens.insert(tokens.begin() + static_cast<std::ptrdiff_t>(counter_start), "total");
    } else if (last == "sum" || last == "bucket") {
      tokens.push_back("value");
    }
  }
  if (tokens.size() == counter_start) tokens.push_back("value");  // a name of symbols only
  for (size_t i = 1; i < tokens.size();) {
    if (IsAbbreviatedUnit(tokens[i])) {
      tokens[i - 1] += tokens[i];
      tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  metric.name = Join(tokens);
  metric.help = "PDH counter \\" + std::string(object) + "\\" + std::string(counter) + " (" +
                CounterTypeName(counter_type) + ")" + conversion;
  return metric;
}

const MetricName& MetricNamer::Map(std::string_view object, std::string_view counter,
                                   uint32_t counter_type) {
  std::string key;
  key.reserve(object.size() + counter.size() + 10);
  key.append(object).append(1, '\0').append(counter).append(1, '\0');
  key.append(reinterpret_cast<const char*>(&counter_type), sizeof counter_type);
  std::lock_guard lock(mutex_);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    it = cache_.emplace(std::move(key), MapMetricName(object, counter, counter_type)).first;
  }
  return it->second;
}

}  // namespace perfhive
