// HostSelector: which hosts a command applies to, by their labels and names, as administrators
// write it: "role=web,site=ams*" (every term must hold). A term is KEY=PATTERN or KEY!=PATTERN;
// patterns are name patterns (perfdata/name_pattern.h: '*' any run, case ignored); the key
// `host` is the host's own name; a label a host lacks has the value "", so "role=" selects the
// hosts without a role and "role!=" those with one. docs/query_semantics.md has the grammar.

#ifndef PERFHIVE_QUERY_HOST_SELECTOR_H_
#define PERFHIVE_QUERY_HOST_SELECTOR_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "perfdata/name_pattern.h"

namespace perfhive::query {

// A host's labels, key to value ("role" → "web"); keys sorted.
using HostLabels = std::map<std::string, std::string>;
// The labels of a host by name, as the server knows them (policies and the agent's own); an empty
// map for a host without labels.
using HostLabelsLookup = std::function<HostLabels(const std::string& host)>;

// Whether `key` is a label key: a letter or '_', then letters, digits, '_', '.' or '-'.
bool IsLabelKey(std::string_view key);

class HostSelector {
 public:
  // The selector of every host.
  HostSelector() = default;

  // Parses `text`; "" selects every host. Errors (kInvalidArgument) name the term that is wrong
  // and show a correct one.
  static Result<HostSelector> Parse(std::string_view text);

  bool selects_everything() const { return terms_.empty(); }
  // Whether a term needs labels (rather than the host name only).
  bool needs_labels() const;
  bool Matches(const std::string& host, const HostLabels& labels) const;
  // As parsed, for messages.
  const std::string& text() const { return text_; }

 private:
  struct Term {
    std::string key;
    NamePattern pattern;
    bool negated = false;
  };
  std::vector<Term> terms_;
  std::string text_;
};

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_HOST_SELECTOR_H_
