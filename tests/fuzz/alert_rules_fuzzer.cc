// Feeds arbitrary bytes to the server's reading of an alerting rules file (RuleBook::Parse): a
// file accepted must hold only rules an evaluation can run (a name, a path, a condition with a
// finite threshold and a duration not below zero, a step for every aggregate, unique names), and
// every refusal must name the file. Nothing may crash, hang or leak.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>

#include "server/alerts/rule_book.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  perfhive::Result<perfhive::RuleBook> book = perfhive::RuleBook::Parse(text, "fuzz.toml");
  if (!book.ok()) {
    if (book.error().rfind("fuzz.toml:", 0) != 0) __builtin_trap();
    return 0;
  }
  if (book->interval_ns() <= 0) __builtin_trap();
  std::set<std::string> names;
  for (const perfhive::AlertRule& rule : book->rules()) {
    if (rule.name.empty() || rule.path.empty() || rule.severity.empty()) __builtin_trap();
    if (!std::isfinite(rule.condition.threshold) || rule.condition.for_ns < 0) __builtin_trap();
    if (rule.read.aggregation.has_value() != !rule.aggregate.empty()) __builtin_trap();
    if (!rule.aggregate.empty() && rule.step_ns <= 0) __builtin_trap();
    if (rule.read.paths.size() != 1 || !rule.read.condition.has_value()) __builtin_trap();
    if (!names.insert(rule.name).second) __builtin_trap();
  }
  return 0;
}
