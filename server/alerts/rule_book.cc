#include "server/alerts/rule_book.h"

#include <set>

#include "config/toml_settings.h"
#include "perfdata/case_folding.h"
#include "perfdata/counter_path.h"
#include "perfdata/time_text.h"
#include "query/fleet_parameters.h"
#include "query/label_text.h"

namespace perfhive {
namespace {

// The placeholders a summary or description may hold, filled in per alert.
constexpr std::string_view kPlaceholders[] = {"host", "instance", "path", "value", "threshold"};

// A string under `key`, or an error at the value's line and column.
Result<std::string> RuleString(std::string_view origin, const toml::node& value,
                               std::string_view key) {
  if (const auto* text = value.as_string()) return text->get();
  return Status::InvalidArgument(TomlWhereExactly(origin, value) + std::string(key) +
                                 " must be a string");
}

// A span ("30s", "5m") under `key`.
Result<int64_t> RuleSpan(std::string_view origin, const toml::node& value, std::string_view key) {
  Result<std::string> text = RuleString(origin, value, key);
  if (!text.ok()) return text.status();
  Result<int64_t> span = ParseSpan(*text);
  if (!span.ok() || *span <= 0) {
    return Status::InvalidArgument(TomlWhereExactly(origin, value) + std::string(key) + " \"" +
                                   *text + "\" is not a span such as 30s, 5m or 1h");
  }
  return span;
}

// Every {placeholder} of `text` is one of kPlaceholders.
Status CheckPlaceholders(std::string_view text) {
  for (size_t open = text.find('{'); open != std::string_view::npos;
       open = text.find('{', open + 1)) {
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) return Status();  // a lone brace is text
    std::string_view name = text.substr(open + 1, close - open - 1);
    bool known = false;
    for (std::string_view placeholder : kPlaceholders) known = known || placeholder == name;
    if (!known) {
      return Status::InvalidArgument("unknown placeholder {" + std::string(name) +
                                     "}; a rule's text may hold {host}, {instance}, {path}, "
                                     "{value} and {threshold}");
    }
  }
  return Status();
}

Result<AlertRule> ParseRule(std::string_view origin, const toml::table& table) {
  AlertRule rule;
  query::FleetParameters fleet;
  const toml::node* condition_node = nullptr;
  const toml::node* for_node = nullptr;
  const toml::node* step_node = nullptr;
  bool has_path = false;
  for (const auto& entry : table) {
    // Not a structured binding: lambdas take those from C++20 on, clang 14 not yet.
    const toml::key& key = entry.first;
    const toml::node& value = entry.second;
    std::string where = TomlWhereExactly(origin, value);
    auto text = [&](std::string& into) -> Status {
      Result<std::string> parsed = RuleString(origin, value, key.str());
      if (!parsed.ok()) return parsed.status();
      into = std::move(parsed).value();
      return Status();
    };
    Status read;
    if (key == "name") {
      read = text(rule.name);
    } else if (key == "path") {
      read = text(rule.path);
      has_path = true;
    } else if (key == "hosts") {
      read = text(rule.hosts);
    } else if (key == "aggregate") {
      read = text(rule.aggregate);
    } else if (key == "by") {
      read = text(rule.by);
    } else if (key == "step") {
      step_node = &value;
    } else if (key == "condition") {
      condition_node = &value;
    } else if (key == "for") {
      for_node = &value;
    } else if (key == "severity") {
      read = text(rule.severity);
      if (read.ok() && rule.severity.empty()) {
        read = Status::InvalidArgument(where + "severity is empty; leave it out for \"warning\"");
      }
    } else if (key == "labels") {
      Result<std::map<std::string, std::string>> labels =
          TomlStringTable(origin, value, "labels", query::CheckHostLabel);
      if (!labels.ok()) return labels.status();
      rule.labels = std::move(labels).value();
      for (const char* reserved : {"alertname", "severity"}) {
        if (rule.labels.count(reserved) != 0) {
          return Status::InvalidArgument(where + "labels: " + reserved +
                                         " is the rule's own (name, severity)");
        }
      }
    } else if (key == "summary" || key == "description") {
      std::string& into = key == "summary" ? rule.summary : rule.description;
      read = text(into);
      if (read.ok()) read = CheckPlaceholders(into).Prefixed(where + std::string(key.str()) + ": ");
    } else {
      return Status::InvalidArgument(where + "unknown key \"" + std::string(key.str()) +
                                     "\" in [[rule]] (name, path, hosts, aggregate, by, step, "
                                     "condition, for, severity, labels, summary, description)");
    }
    if (!read.ok()) return read;
  }
  std::string where = TomlWhereExactly(origin, table);
  if (rule.name.empty()) return Status::InvalidArgument(where + "each [[rule]] needs a name");
  const std::string named = "rule \"" + rule.name + "\": ";
  if (!has_path || rule.path.empty()) {
    return Status::InvalidArgument(where + named + "needs a path, a PDH counter path such as " +
                                   "'\\Processor(_Total)\\% Processor Time'");
  }
  if (condition_node == nullptr) {
    return Status::InvalidArgument(where + named + "needs a condition such as \"> 90\"");
  }
  Result<std::string> condition_text = RuleString(origin, *condition_node, "condition");
  if (!condition_text.ok()) return condition_text.status();
  Result<query::HeldCondition> condition = query::ParseHeldCondition(*condition_text);
  if (!condition.ok()) {
    return condition.status().Prefixed(TomlWhereExactly(origin, *condition_node));
  }
  rule.condition = std::move(condition).value();
  if (for_node != nullptr) {
    if (rule.condition.for_ns != 0) {
      return Status::InvalidArgument(TomlWhereExactly(origin, *for_node) + named +
                                     "the condition says for how long already; give one of the "
                                     "two");
    }
    Result<int64_t> span = RuleSpan(origin, *for_node, "for");
    if (!span.ok()) return span.status();
    rule.condition.for_ns = *span;
    rule.condition.text += " for " + for_node->as_string()->get();
  }
  if (step_node != nullptr) {
    if (rule.aggregate.empty()) {
      return Status::InvalidArgument(TomlWhereExactly(origin, *step_node) + named +
                                     "a step is the aggregate's; give aggregate too");
    }
    Result<int64_t> span = RuleSpan(origin, *step_node, "step");
    if (!span.ok()) return span.status();
    rule.step_ns = *span;
  }
  if (!rule.by.empty() && rule.aggregate.empty()) {
    return Status::InvalidArgument(where + named + "by groups an aggregate; give aggregate too");
  }
  if (rule.aggregate.find(',') != std::string::npos) {
    return Status::InvalidArgument(where + named +
                                   "aggregate is one function; write a rule for each");
  }
  // The read, through the parser every front uses, so that a rule accepts what --select,
  // --aggregate and --by accept.
  rule.read.paths = {rule.path};
  fleet.select = rule.hosts;
  fleet.aggregates = rule.aggregate;
  fleet.group_by = rule.by;
  if (Status s = query::ApplyFleetParameters(fleet, rule.read); !s.ok()) {
    return s.Prefixed(where + named);
  }
  if (Result<CounterPath> parsed = ParseCounterPath(rule.path); !parsed.ok()) {
    return parsed.status().Prefixed(where + named + "path: ");
  }
  rule.read.condition = rule.condition;
  return rule;
}

}  // namespace

Result<RuleBook> RuleBook::Parse(std::string_view text, std::string_view origin) {
  Result<toml::table> file = ParseTomlSettings(text, origin);
  if (!file.ok()) return file.status();
  RuleBook book;
  std::set<std::string> names;
  for (const auto& [key, value] : *file) {
    const std::string where = TomlWhereExactly(origin, value);
    if (key == "interval") {
      Result<int64_t> interval = RuleSpan(origin, value, "interval");
      if (!interval.ok()) return interval.status();
      book.interval_ns_ = *interval;
      continue;
    }
    if (key != "rule") {
      return Status::InvalidArgument(where + "unknown key \"" + std::string(key.str()) +
                                     "\"; rules are [[rule]] tables, beside an interval");
    }
    const toml::array* list = value.as_array();
    if (list == nullptr) {
      return Status::InvalidArgument(where + "rules are [[rule]] tables (an array of tables)");
    }
    for (const toml::node& node : *list) {
      const toml::table* table = node.as_table();
      if (table == nullptr) {
        return Status::InvalidArgument(TomlWhereExactly(origin, node) + "each [[rule]] is a table");
      }
      Result<AlertRule> rule = ParseRule(origin, *table);
      if (!rule.ok()) return rule.status();
      if (!names.insert(FoldCase(rule->name)).second) {
        return Status::InvalidArgument(TomlWhereExactly(origin, node) + "two rules are named \"" +
                                       rule->name + "\"");
      }
      book.rules_.push_back(std::move(rule).value());
    }
  }
  for (AlertRule& rule : book.rules_) {
    if (!rule.aggregate.empty() && rule.step_ns == 0) rule.step_ns = book.interval_ns_;
  }
  return book;
}

Result<std::unique_ptr<RuleFile>> RuleFile::Open(Env& env, std::string path) {
  std::unique_ptr<RuleFile> file(new RuleFile(env, std::move(path)));
  Result<bool> loaded = file->Reload();
  if (!loaded.ok()) return loaded.status();
  return file;
}

std::shared_ptr<const RuleBook> RuleFile::book() const {
  std::lock_guard lock(mutex_);
  return book_;
}

std::string RuleFile::reload_error() const {
  std::lock_guard lock(mutex_);
  return reload_error_;
}

Result<bool> RuleFile::Reload() {
  Result<std::vector<uint8_t>> bytes = env_.ReadFile(path_);
  Status failed;
  std::string text;
  if (!bytes.ok()) {
    failed = bytes.status().Prefixed("rules: ");
  } else {
    text.assign(bytes->begin(), bytes->end());
    std::lock_guard lock(mutex_);
    if (book_ != nullptr && text == text_) {
      reload_error_.clear();
      return false;
    }
  }
  Result<RuleBook> book = failed.ok() ? RuleBook::Parse(text, path_) : Result<RuleBook>(failed);
  std::lock_guard lock(mutex_);
  if (!book.ok()) {
    reload_error_ = book.error();
    return book.status();
  }
  text_ = std::move(text);
  book_ = std::make_shared<const RuleBook>(std::move(book).value());
  reload_error_.clear();
  return true;
}

}  // namespace perfhive
