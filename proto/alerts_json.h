// The JSON of the server's alerts and rules (perfhive.v1.ListAlertsResponse), one schema for the
// HTTP API's /api/v1/alerts and `perfhive alerts --format json`; docs/http_api.md describes it.

#ifndef PERFHIVE_PROTO_ALERTS_JSON_H_
#define PERFHIVE_PROTO_ALERTS_JSON_H_

#include <nlohmann/json.hpp>

#include "perfhive/v1/query.pb.h"

namespace perfhive {

// Times as Unix milliseconds (null where unset), spans in milliseconds, maps with keys in order.
nlohmann::ordered_json AlertsJson(const perfhive::v1::ListAlertsResponse& response);

}  // namespace perfhive

#endif  // PERFHIVE_PROTO_ALERTS_JSON_H_
