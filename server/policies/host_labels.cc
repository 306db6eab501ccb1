#include "server/policies/host_labels.h"

namespace perfhive {

EffectiveLabels LabelsUnder(const CollectionPlan& plan, const query::HostLabels& agent) {
  EffectiveLabels effective{.labels = agent, .overridden = {}};
  for (const auto& [key, value] : plan.labels) {
    auto [label, added] = effective.labels.try_emplace(key, value);
    if (added || label->second == value) continue;
    effective.overridden.push_back("agent label " + key + "=" + label->second +
                                   " is overridden by policy " + plan.policy + ": " + key + "=" +
                                   value);
    label->second = value;
  }
  return effective;
}

query::HostLabels HostLabelDirectory::LabelsOf(const std::string& host) const {
  CollectionPlan plan = policies_ != nullptr ? policies_->book()->PlanFor(host) : CollectionPlan();
  Result<std::optional<HostRecord>> record = store_.FindHost(host);
  const bool known = record.ok() && record->has_value();
  return LabelsUnder(plan, known ? (*record)->labels : query::HostLabels()).labels;
}

}  // namespace perfhive
