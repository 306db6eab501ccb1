#include "config/query_schedule.h"

#include "config/duration.h"

namespace perfhive {

using namespace std::chrono_literals;

QuerySchedule GlobalQuery() { return QuerySchedule{.name = "Global", .objects = {}, .every = {}}; }

std::chrono::milliseconds ScheduleInterval(const QuerySchedule& query,
                                           std::chrono::milliseconds interval) {
  if (query.every) return *query.every;
  if (query.name == "Costly") return 5min;
  return interval;
}

Result<QuerySchedule> ParseQueryFlag(std::string_view text) {
  QuerySchedule query;
  size_t at = text.rfind('@');
  if (at != std::string_view::npos) {
    Result<std::chrono::milliseconds> every = ParseDuration(text.substr(at + 1));
    if (!every.ok()) return every.status().Prefixed("query " + std::string(text) + ": ");
    query.every = *every;
    text = text.substr(0, at);
  }
  if (text == "Global" || text == "Costly") {
    query.name = std::string(text);
    return query;
  }
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view object = text.substr(0, comma);
    if (!object.empty()) query.objects.emplace_back(object);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  if (query.objects.empty()) {
    return Status::InvalidArgument(
        "a query is Global, Costly or object names, with an optional @interval: Global@10s, "
        "Costly, 'Processor,Memory@1m'");
  }
  return query;
}

std::string QueryLabel(const QuerySchedule& query) {
  if (!query.name.empty()) return query.name;
  std::string label;
  for (const std::string& object : query.objects) {
    if (!label.empty()) label += ',';
    label += object;
  }
  return label;
}

std::string FormatQuery(const QuerySchedule& query) {
  std::string text = QueryLabel(query);
  if (query.every) text += "@" + FormatDuration(*query.every);
  return text;
}

std::string FormatQueries(const std::vector<QuerySchedule>& queries) {
  std::string text;
  for (const QuerySchedule& query : queries) {
    text += (text.empty() ? "" : "; ") + FormatQuery(query);
  }
  return text;
}

}  // namespace perfhive
