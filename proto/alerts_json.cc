#include "proto/alerts_json.h"

#include <map>
#include <string>
#include <vector>

#include "proto/json_times.h"

namespace perfhive {
namespace {

using Json = nlohmann::ordered_json;

template <typename ProtoMap>
std::map<std::string, std::string> InOrder(const ProtoMap& map) {
  return std::map<std::string, std::string>(map.begin(), map.end());
}

}  // namespace

Json AlertsJson(const v1::ListAlertsResponse& response) {
  Json rules = Json::array();
  for (const v1::AlertRuleReport& rule : response.rules()) {
    rules.push_back(
        {{"name", rule.name()},
         {"path", rule.path()},
         {"hosts", rule.hosts()},
         {"aggregate", rule.aggregate()},
         {"by", rule.by()},
         {"step_ms", rule.step_nanos() / 1'000'000},
         {"condition", rule.condition()},
         {"comparison", rule.comparison()},
         {"threshold", rule.threshold()},
         {"for_ms", rule.for_nanos() / 1'000'000},
         {"severity", rule.severity()},
         {"labels", InOrder(rule.labels())},
         {"summary", rule.summary()},
         {"description", rule.description()},
         {"last_evaluation_ms", MillisOrNull(rule.last_evaluation_unix_nanos())},
         {"series_checked", rule.series_checked()},
         {"error", rule.error()},
         {"missing", std::vector<std::string>(rule.missing().begin(), rule.missing().end())}});
  }
  Json alerts = Json::array();
  for (const v1::AlertInfo& alert : response.alerts()) {
    alerts.push_back({{"rule", alert.rule()},
                      {"state", alert.state()},
                      {"severity", alert.severity()},
                      {"series", alert.series()},
                      {"host", alert.host()},
                      {"labels", InOrder(alert.labels())},
                      {"annotations", InOrder(alert.annotations())},
                      {"active_since_ms", MillisOrNull(alert.active_since_unix_nanos())},
                      {"firing_since_ms", MillisOrNull(alert.firing_since_unix_nanos())},
                      {"resolved_ms", MillisOrNull(alert.resolved_unix_nanos())},
                      {"value", alert.value()}});
  }
  return Json{{"rules_file", response.rules_file()},
              {"interval_ms", response.interval_nanos() / 1'000'000},
              {"reload_error", response.reload_error()},
              {"rules", std::move(rules)},
              {"alerts", std::move(alerts)}};
}

}  // namespace perfhive
