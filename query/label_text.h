// Host labels as people write them ("role=web") and as every end checks them: the agent at its
// start, the server in a Hello and in its policies file. One rule everywhere, so that a label the
// agent accepts is one the server stores, a selector can name and Prometheus can carry.

#ifndef PERFHIVE_QUERY_LABEL_TEXT_H_
#define PERFHIVE_QUERY_LABEL_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "query/host_selector.h"

namespace perfhive::query {

// Labels travel in every Hello and on every exported series: a host carries a few short ones.
inline constexpr size_t kMaxHostLabels = 32;
inline constexpr size_t kMaxLabelKeyBytes = 64;
inline constexpr size_t kMaxLabelValueBytes = 128;

// A label is a key (IsLabelKey, at most kMaxLabelKeyBytes, not `host`, which selectors read as
// the host's own name) and a value of 1 to kMaxLabelValueBytes of UTF-8 that is safe to display,
// without ',' or ';' (which separate labels in selectors and in the MSI's LABELS) and without
// spaces at its ends (selectors trim them). kInvalidArgument names the label and the rule.
Status CheckHostLabel(std::string_view key, std::string_view value);
// Each label, and at most kMaxHostLabels of them.
Status CheckHostLabels(const HostLabels& labels);

// "key=value", checked.
Result<std::pair<std::string, std::string>> ParseHostLabel(std::string_view text);

// "role=web,site=ams": keys in order; "" for none.
std::string FormatHostLabels(const HostLabels& labels);

}  // namespace perfhive::query

#endif  // PERFHIVE_QUERY_LABEL_TEXT_H_
