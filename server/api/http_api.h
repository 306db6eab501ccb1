// HttpApi: the query service as JSON over HTTP GET (docs/http_api.md), for the web console,
// scripts and Grafana's JSON data sources. Each call is one of QueryService's answers: this class
// only turns URL parameters into the request and the response into JSON, so the console shows
// exactly what `perfhive` shows. The caller has authorized the reader (ConsoleServer).

#ifndef PERFHIVE_SERVER_API_HTTP_API_H_
#define PERFHIVE_SERVER_API_HTTP_API_H_

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "export/http_server.h"
#include "perfhive/v1/query.pb.h"
#include "query/read_engine.h"
#include "server/api/query_service.h"

namespace perfhive {

class HttpApi {
 public:
  explicit HttpApi(QueryService& query) : query_(query) {}

  // Answers a request for a path under /api/v1/ (404 for any other); `now_ns` anchors the
  // relative times ("-1h"). Errors are JSON: {"error":{"code","message"[,"column"]}}.
  HttpReply Handle(const HttpRequest& request, int64_t now_ns);

 private:
  HttpReply Alerts();
  HttpReply Health(const HttpRequest& request, int64_t now_ns);
  HttpReply Hosts(const HttpRequest& request, int64_t now_ns);
  HttpReply Objects(const HttpRequest& request, int64_t now_ns);
  HttpReply Counters(const HttpRequest& request, int64_t now_ns);
  HttpReply Instances(const HttpRequest& request, int64_t now_ns);
  HttpReply Read(const HttpRequest& request, int64_t now_ns, bool csv);

  QueryService& query_;
};

// The parameters of /api/v1/read as the query engine's request: path (repeated), from, to, step,
// statistics, latest, scale, cap100, max_points. Errors name the parameter and what it takes.
Result<query::ReadRequest> ReadRequestFromParams(const HttpRequest& request, int64_t now_ns);

// A time parameter as Unix nanoseconds: Unix milliseconds ("1764169200000"), RFC 3339
// ("2026-11-26T15:00:00Z"), "now", or a span back from now ("-5m", "-1h", "-24h").
Result<int64_t> ParseApiTime(std::string_view text, int64_t now_ns);

// The HTTP status that tells a client what a Status means: 400 for a bad request, 401, 403,
// 404, 503 for what may work later, 500 for the rest.
int HttpStatusOf(const Status& status);

// The JSON error body of `status`.
HttpReply JsonError(const Status& status);

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_API_HTTP_API_H_
