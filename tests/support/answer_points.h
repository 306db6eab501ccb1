// AnswerPoints: the points of one series of a read's JSON answer (`perfhive query --format json`
// and /api/v1/read alike, query/renderers.h) as rows, zipped from its columns, for tests that
// look at points one by one.

#ifndef PERFHIVE_TESTS_SUPPORT_ANSWER_POINTS_H_
#define PERFHIVE_TESTS_SUPPORT_ANSWER_POINTS_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace perfhive::testing {

struct AnswerPoint {
  int64_t time_ms = 0;
  std::optional<double> value;  // none unless the status is a success
  uint32_t status = 0;          // the PDH status code (0: PDH_CSTATUS_VALID_DATA)
  std::string path;             // the instance's path at this point
  std::optional<uint64_t> raw;  // with --raw
};

inline std::vector<AnswerPoint> AnswerPoints(const nlohmann::json& series) {
  std::vector<AnswerPoint> points(series.at("times").size());
  for (size_t k = 0; k < points.size(); ++k) {
    AnswerPoint& point = points[k];
    point.time_ms = series["times"][k].get<int64_t>();
    if (!series["values"][k].is_null()) point.value = series["values"][k].get<double>();
    point.status = series["statuses"][k].get<uint32_t>();
    point.path = series.contains("point_paths")
                     ? series["paths"][series["point_paths"][k].get<size_t>()].get<std::string>()
                     : series["path"].get<std::string>();
    if (series.contains("raw") && !series["raw"][k].is_null()) {
      point.raw = series["raw"][k].get<uint64_t>();
    }
  }
  return points;
}

// The values of the points whose status is a success, in order.
inline std::vector<double> ValidValues(const nlohmann::json& series) {
  std::vector<double> values;
  for (const nlohmann::json& value : series.at("values")) {
    if (!value.is_null()) values.push_back(value.get<double>());
  }
  return values;
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SUPPORT_ANSWER_POINTS_H_
