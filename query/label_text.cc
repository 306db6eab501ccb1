#include "query/label_text.h"

#include "perfdata/display_text.h"

namespace perfhive::query {

Status CheckHostLabel(std::string_view key, std::string_view value) {
  const std::string label =
      "label \"" + EscapeForDisplay(key) + "=" + EscapeForDisplay(value) + "\": ";
  if (!IsLabelKey(key) || key.size() > kMaxLabelKeyBytes) {
    return Status::InvalidArgument(label + "\"" + EscapeForDisplay(key) +
                                   "\" is not a label key (a letter or _, then letters, digits, "
                                   "_, . or -; at most " +
                                   std::to_string(kMaxLabelKeyBytes) + " bytes)");
  }
  if (key == "host") {
    return Status::InvalidArgument(
        label + "host is the host's own name in selectors (host=web*); give the label another key");
  }
  if (value.empty()) {
    return Status::InvalidArgument(label + "a label has a value; leave the label out instead");
  }
  if (value.size() > kMaxLabelValueBytes || EscapeForDisplay(value) != value ||
      value.find_first_of(",;") != std::string_view::npos || value.front() == ' ' ||
      value.back() == ' ') {
    return Status::InvalidArgument(label + "a label's value is printable UTF-8 of at most " +
                                   std::to_string(kMaxLabelValueBytes) +
                                   " bytes, without ',' or ';' and without spaces at its ends");
  }
  return Status();
}

Status CheckHostLabels(const HostLabels& labels) {
  if (labels.size() > kMaxHostLabels) {
    return Status::InvalidArgument("a host has at most " + std::to_string(kMaxHostLabels) +
                                   " labels, not " + std::to_string(labels.size()));
  }
  for (const auto& [key, value] : labels) {
    if (Status valid = CheckHostLabel(key, value); !valid.ok()) return valid;
  }
  return Status();
}

Result<std::pair<std::string, std::string>> ParseHostLabel(std::string_view text) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos) {
    return Status::InvalidArgument("label \"" + EscapeForDisplay(text) +
                                   "\" is not KEY=VALUE (e.g. role=web)");
  }
  std::string_view key = text.substr(0, equals);
  std::string_view value = text.substr(equals + 1);
  if (Status valid = CheckHostLabel(key, value); !valid.ok()) return valid;
  return std::make_pair(std::string(key), std::string(value));
}

std::string FormatHostLabels(const HostLabels& labels) {
  std::string text;
  for (const auto& [key, value] : labels) {
    if (!text.empty()) text += ',';
    text += key + "=" + value;
  }
  return text;
}

}  // namespace perfhive::query
