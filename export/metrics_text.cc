#include "export/metrics_text.h"

#include <charconv>
#include <cmath>

namespace perfhive {
namespace {

// HELP text escapes backslash and newline; label values also the double quote.
void AppendEscaped(std::string& out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

void AppendValue(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    char buffer[32];
    auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest exact
    out.append(buffer, end);
  }
}

}  // namespace

void MetricsText::Add(const std::string& name, MetricType type, std::string_view help,
                      const Labels& labels, double value, std::optional<int64_t> timestamp_ms) {
  auto [it, inserted] = families_.try_emplace(name);
  Family& family = it->second;
  if (inserted) {
    family.type = type;
    family.help = help;
  }
  std::string& out = family.samples;
  out += name;
  if (!labels.empty()) {
    out += '{';
    for (size_t i = 0; i < labels.size(); ++i) {
      if (i > 0) out += ',';
      out += labels[i].name;
      out += "=\"";
      AppendEscaped(out, labels[i].value, true);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  AppendValue(out, value);
  if (timestamp_ms) out += ' ' + std::to_string(*timestamp_ms);
  out += '\n';
}

void MetricsText::AddComputed(const ComputedSample& sample, MetricNamer& namer,
                              const Labels& host_labels) {
  const MetricName& metric =
      namer.Map(sample.object_english, sample.counter_english, sample.counter_type);
  Labels labels = SeriesLabels(sample, metric.name, host_labels);
  labels.erase(labels.begin());  // __name__ is the family's name here
  Add(metric.name, MetricType::kGauge, metric.help, labels, metric.Apply(sample.value));
}

std::string MetricsText::Render() const {
  std::string page;
  for (const auto& [name, family] : families_) {
    page += "# HELP " + name + ' ';
    AppendEscaped(page, family.help, false);
    page += "\n# TYPE " + name + (family.type == MetricType::kCounter ? " counter\n" : " gauge\n");
    page += family.samples;
  }
  return page;
}

}  // namespace perfhive
