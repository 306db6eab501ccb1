#include "query/host_selector.h"

#include <cctype>

namespace perfhive::query {
namespace {

constexpr const char* kExample = " (e.g. role=web,site=ams*)";

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

bool IsLabelKey(std::string_view key) {
  if (key.empty()) return false;
  auto letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  if (!letter(key.front())) return false;
  for (char c : key) {
    if (!letter(c) && !std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != '-') {
      return false;
    }
  }
  return true;
}

Result<HostSelector> HostSelector::Parse(std::string_view text) {
  HostSelector selector;
  selector.text_ = std::string(Trimmed(text));
  if (selector.text_.empty()) return selector;
  std::string_view rest = selector.text_;
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view term = Trimmed(rest.substr(0, comma));
    const size_t equals = term.find('=');
    if (term.empty() || equals == std::string_view::npos) {
      return Status::InvalidArgument("host selector \"" + selector.text_ + "\": the term \"" +
                                     std::string(term) + "\" is not KEY=VALUE" + kExample);
    }
    const bool negated = equals > 0 && term[equals - 1] == '!';
    std::string_view key = Trimmed(term.substr(0, negated ? equals - 1 : equals));
    if (!IsLabelKey(key)) {
      return Status::InvalidArgument(
          "host selector \"" + selector.text_ + "\": \"" + std::string(key) +
          "\" is not a label key (a letter or _, then letters, digits, _, . or -)" + kExample);
    }
    std::string_view value = Trimmed(term.substr(equals + 1));
    selector.terms_.push_back({std::string(key), NamePattern(value), negated});
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return selector;
}

bool HostSelector::needs_labels() const {
  for (const Term& term : terms_) {
    if (term.key != "host") return true;
  }
  return false;
}

bool HostSelector::Matches(const std::string& host, const HostLabels& labels) const {
  static const std::string kAbsent;
  for (const Term& term : terms_) {
    const std::string* value = &kAbsent;
    if (term.key == "host") {
      value = &host;
    } else if (auto found = labels.find(term.key); found != labels.end()) {
      value = &found->second;
    }
    if (term.pattern.Matches(*value) == term.negated) return false;
  }
  return true;
}

}  // namespace perfhive::query
