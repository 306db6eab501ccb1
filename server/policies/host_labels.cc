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
  // The count first: labels that change while this reads are read again at the next question.
  const uint64_t changes = store_.catalog().host_labels_changes();
  std::shared_ptr<const PolicyBook> book = policies_ != nullptr ? policies_->book() : nullptr;
  {
    std::lock_guard lock(mutex_);
    if (changes != kept_changes_ || book != kept_book_) {
      kept_.clear();
      kept_changes_ = changes;
      kept_book_ = book;
    }
    if (auto kept = kept_.find(host); kept != kept_.end()) return kept->second;
  }
  CollectionPlan plan = book != nullptr ? book->PlanFor(host) : CollectionPlan();
  Result<std::optional<HostRecord>> record = store_.catalog().FindHost(host);
  if (!record.ok()) return LabelsUnder(plan, query::HostLabels()).labels;  // not kept: try again
  query::HostLabels labels =
      LabelsUnder(plan, record->has_value() ? (*record)->labels : query::HostLabels()).labels;
  std::lock_guard lock(mutex_);
  if (changes == kept_changes_ && book == kept_book_) kept_.emplace(host, labels);
  return labels;
}

}  // namespace perfhive
