// A host's labels as the server shows, selects and exports them: the labels its agent gave in its
// Hello (kept in the store), with the labels of the policy that names it over them, key by key.
// The center decides, as it does for plans; where a policy gives an agent's label another value,
// the agent reports it (its plan carries the policy's labels) and the server logs it.

#ifndef PERFHIVE_SERVER_POLICIES_HOST_LABELS_H_
#define PERFHIVE_SERVER_POLICIES_HOST_LABELS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "proto/collection_plan.h"
#include "query/host_selector.h"
#include "server/policies/policy_book.h"
#include "store/store.h"

namespace perfhive {

struct EffectiveLabels {
  query::HostLabels labels;
  // The agent's labels the plan gives another value, one line each: "agent label site=ams is
  // overridden by policy web: site=fra".
  std::vector<std::string> overridden;
};

// `agent`'s labels with `plan`'s over them.
EffectiveLabels LabelsUnder(const CollectionPlan& plan, const query::HostLabels& agent);

// The effective labels of any host, for the query engine's selectors and the exporters. Each
// host's are kept once read, until an agent's labels change in the store or the policies are
// read again: a fleet read with a selector, or a rule, asked the store once per host each time.
class HostLabelDirectory {
 public:
  // `policies` may be null (no --policies): then a host has its agent's labels.
  HostLabelDirectory(Store& store, const PolicyFile* policies)
      : store_(store), policies_(policies) {}

  // The host's labels now; its policy's alone when the store cannot be read or does not know
  // the host.
  query::HostLabels LabelsOf(const std::string& host) const;
  // LabelsOf as the engine and the exporters take it; valid while this directory is.
  query::HostLabelsLookup Lookup() const {
    return [this](const std::string& host) { return LabelsOf(host); };
  }

 private:
  Store& store_;
  const PolicyFile* const policies_;
  mutable std::mutex mutex_;
  // What the kept labels were read under: the store's count of label changes, the policies.
  mutable uint64_t kept_changes_ = 0;
  mutable std::shared_ptr<const PolicyBook> kept_book_;
  mutable std::unordered_map<std::string, query::HostLabels> kept_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_POLICIES_HOST_LABELS_H_
