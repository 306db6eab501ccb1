#include "server/policies/policy_book.h"

#include <set>

#include "config/duration.h"
#include "config/toml_settings.h"
#include "perfdata/case_folding.h"
#include "perfdata/name_pattern.h"
#include "query/label_text.h"

namespace perfhive {
namespace {

// A list of strings under `key`, each non-empty.
Result<std::vector<std::string>> NonEmptyStrings(std::string_view origin, const toml::node& node,
                                                 std::string_view key) {
  Result<std::vector<std::string>> items = TomlStringList(origin, node, key);
  if (!items.ok()) return items.status();
  for (const std::string& item : *items) {
    if (item.empty()) {
      return Status::InvalidArgument(TomlWhere(origin, node) + std::string(key) +
                                     " holds an empty string");
    }
  }
  return items;
}

Result<PolicyBook::Policy> ParsePolicy(std::string_view origin, const toml::table& table) {
  PolicyBook::Policy policy;
  bool named = false;
  for (const auto& [key, value] : table) {
    std::string where = TomlWhere(origin, value);
    if (key == "name") {
      Result<std::string> name = TomlString(origin, value, "name");
      if (!name.ok()) return name.status();
      policy.plan.policy = std::move(name).value();
      named = true;
    } else if (key == "hosts") {
      Result<std::vector<std::string>> hosts = NonEmptyStrings(origin, value, "hosts");
      if (!hosts.ok()) return hosts.status();
      policy.hosts = std::move(hosts).value();
    } else if (key == "queries") {
      Result<std::vector<std::string>> queries = NonEmptyStrings(origin, value, "queries");
      if (!queries.ok()) return queries.status();
      for (const std::string& text : *queries) {
        Result<QuerySchedule> query = ParseQueryFlag(text);
        if (!query.ok()) return query.status().Prefixed(where + "queries: ");
        policy.plan.queries.push_back(std::move(query).value());
      }
      if (policy.plan.queries.empty()) {
        return Status::InvalidArgument(where +
                                       "queries is empty; leave it out to keep the agents' own");
      }
    } else if (key == "interval") {
      Result<std::string> text = TomlString(origin, value, "interval");
      if (!text.ok()) return text.status();
      Result<std::chrono::milliseconds> interval = ParseDuration(*text);
      if (!interval.ok()) return interval.status().Prefixed(where + "interval: ");
      policy.plan.interval = *interval;
    } else if (key == "targets") {
      Result<std::vector<std::string>> targets = NonEmptyStrings(origin, value, "targets");
      if (!targets.ok()) return targets.status();
      if (targets->empty()) {
        return Status::InvalidArgument(
            where + "targets is empty; leave it out to keep the pollers' own [[target]] tables");
      }
      policy.plan.targets = std::move(targets).value();
    } else if (key == "spool_max_bytes") {
      // An integer node only: toml++ converting a float that no int64_t holds is undefined.
      const toml::value<int64_t>* bytes = value.as_integer();
      if (bytes == nullptr || bytes->get() <= 0) {
        return Status::InvalidArgument(where + "spool_max_bytes must be a positive integer");
      }
      policy.plan.spool_max_bytes = static_cast<uint64_t>(bytes->get());
    } else if (key == "labels") {
      Result<query::HostLabels> labels =
          TomlStringTable(origin, value, "labels", query::CheckHostLabel);
      if (!labels.ok()) return labels.status();
      if (Status valid = query::CheckHostLabels(*labels); !valid.ok()) {
        return valid.Prefixed(where + "labels: ");
      }
      policy.plan.labels = std::move(labels).value();
    } else {
      return Status::InvalidArgument(
          where + "unknown key \"" + std::string(key.str()) +
          "\" in [[policy]] (name, hosts, queries, interval, spool_max_bytes, targets, labels)");
    }
  }
  std::string where = TomlWhere(origin, table);
  if (!named || policy.plan.policy.empty()) {
    return Status::InvalidArgument(where + "each [[policy]] needs a name");
  }
  if (policy.hosts.empty()) {
    return Status::InvalidArgument(where + "policy \"" + policy.plan.policy +
                                   "\" needs hosts, a list of host-name patterns");
  }
  if (Status valid = CheckPlan(policy.plan); !valid.ok()) {
    return valid.Prefixed(where + "policy \"" + policy.plan.policy + "\": ");
  }
  // Each poller a policy gives targets may write as every target: a pattern would give that to
  // any host enrolled later under a matching name.
  if (!policy.plan.targets.empty()) {
    for (const std::string& pattern : policy.hosts) {
      if (pattern.find('*') == std::string::npos) continue;
      return Status::InvalidArgument(
          where + "policy \"" + policy.plan.policy +
          "\" has targets, so its hosts name each poller " +
          "exactly (each may write as every target), not by a pattern: \"" + pattern + "\"");
    }
  }
  policy.plan.revision = PlanRevision(policy.plan);
  return policy;
}

}  // namespace

Result<PolicyBook> PolicyBook::Parse(std::string_view text, std::string_view origin) {
  Result<toml::table> file = ParseTomlSettings(text, origin);
  if (!file.ok()) return file.status();
  PolicyBook book;
  std::set<std::string> names;
  for (const auto& [key, value] : *file) {
    if (key != "policy") {
      return Status::InvalidArgument(TomlWhere(origin, value) + "unknown key \"" +
                                     std::string(key.str()) + "\"; policies are [[policy]] tables");
    }
    const toml::array* list = value.as_array();
    if (list == nullptr) {
      return Status::InvalidArgument(TomlWhere(origin, value) +
                                     "policies are [[policy]] tables (an array of tables)");
    }
    for (const toml::node& node : *list) {
      const toml::table* table = node.as_table();
      if (table == nullptr) {
        return Status::InvalidArgument(TomlWhere(origin, node) + "each [[policy]] is a table");
      }
      Result<Policy> policy = ParsePolicy(origin, *table);
      if (!policy.ok()) return policy.status();
      if (!names.insert(FoldCase(policy->plan.policy)).second) {
        return Status::InvalidArgument(TomlWhere(origin, node) + "two policies are named \"" +
                                       policy->plan.policy + "\"");
      }
      book.policies_.push_back(std::move(policy).value());
    }
  }
  return book;
}

CollectionPlan PolicyBook::PlanFor(std::string_view host) const {
  for (const Policy& policy : policies_) {
    for (const std::string& pattern : policy.hosts) {
      if (MatchesPattern(pattern, host)) return policy.plan;
    }
  }
  return CollectionPlan();
}

bool PolicyBook::PollerMayPoll(std::string_view poller, std::string_view host) const {
  for (const RemoteHostConfig& target : PlannedTargets(PlanFor(poller))) {
    if (FoldCase(target.Name()) == FoldCase(host)) return true;
  }
  return false;
}

Result<std::unique_ptr<PolicyFile>> PolicyFile::Open(Env& env, std::string path) {
  std::unique_ptr<PolicyFile> file(new PolicyFile(env, std::move(path)));
  Result<bool> loaded = file->Reload();
  if (!loaded.ok()) return loaded.status();
  return file;
}

std::shared_ptr<const PolicyBook> PolicyFile::book() const {
  std::lock_guard lock(mutex_);
  return book_;
}

Result<bool> PolicyFile::Reload() {
  Result<std::vector<uint8_t>> bytes = env_.ReadFile(path_);
  if (!bytes.ok()) return bytes.status().Prefixed("policies: ");
  std::string text(bytes->begin(), bytes->end());
  if (book_ != nullptr && text == text_) return false;
  Result<PolicyBook> book = PolicyBook::Parse(text, path_);
  if (!book.ok()) return book.status();
  std::lock_guard lock(mutex_);
  text_ = std::move(text);
  book_ = std::make_shared<const PolicyBook>(std::move(book).value());
  return true;
}

}  // namespace perfhive
