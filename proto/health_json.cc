#include "proto/health_json.h"

#include <string>
#include <vector>

#include "proto/json_times.h"

namespace perfhive {

using Json = nlohmann::ordered_json;

Json HealthJson(const v1::HealthResponse& response) {
  Json findings = Json::array();
  for (const v1::HealthFinding& finding : response.findings()) {
    Json hosts = Json::array();
    for (const v1::HealthHostFinding& host : finding.hosts()) {
      Json gaps = Json::array();
      for (const v1::HealthHostFinding::Gap& gap : host.gaps()) {
        gaps.push_back({{"gone_ms", MillisOrNull(gap.gone_unix_nanos())},
                        {"back_ms", MillisOrNull(gap.back_unix_nanos())}});
      }
      hosts.push_back({{"host", host.host()},
                       {"since_ms", MillisOrNull(host.since_unix_nanos())},
                       {"last_with_ms", MillisOrNull(host.last_with_unix_nanos())},
                       {"cause", host.cause()},
                       {"action", host.action()},
                       {"gaps", std::move(gaps)}});
    }
    findings.push_back({{"kind", finding.kind()},
                        {"object", finding.object()},
                        {"counter", finding.counter()},
                        {"peers", finding.peers()},
                        {"peers_with", finding.peers_with()},
                        {"peer_hosts", finding.peer_hosts()},
                        {"newest_ms", MillisOrNull(finding.newest_unix_nanos())},
                        {"hosts", std::move(hosts)}});
  }
  Json slowest = Json::array();
  for (const v1::HostSlowestObjects& host : response.slowest_objects()) {
    Json objects = Json::array();
    for (const v1::ObjectTime& object : host.objects()) {
      objects.push_back(
          {{"object", object.object()}, {"seconds", static_cast<double>(object.nanos()) / 1e9}});
    }
    slowest.push_back({{"host", host.host()}, {"objects", std::move(objects)}});
  }
  return {{"at_ms", MillisOrNull(response.at_unix_nanos())},
          {"from_ms", MillisOrNull(response.from_unix_nanos())},
          {"hosts", std::vector<std::string>(response.hosts().begin(), response.hosts().end())},
          {"findings", std::move(findings)},
          {"slowest_objects", std::move(slowest)}};
}

}  // namespace perfhive
