// The JSON of the fleet's counter health (perfhive.v1.HealthResponse), one schema for the HTTP
// API's /api/v1/health and `perfhive health --format json`; docs/http_api.md describes it.

#ifndef PERFHIVE_PROTO_HEALTH_JSON_H_
#define PERFHIVE_PROTO_HEALTH_JSON_H_

#include <nlohmann/json.hpp>

#include "perfhive/v1/query.pb.h"

namespace perfhive {

// Times as Unix milliseconds (null where unset).
nlohmann::ordered_json HealthJson(const perfhive::v1::HealthResponse& response);

}  // namespace perfhive

#endif  // PERFHIVE_PROTO_HEALTH_JSON_H_
