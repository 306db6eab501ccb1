#include "server/api/http_api.h"

#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "perfdata/display_text.h"
#include "perfdata/pdh_status.h"
#include "perfdata/time_text.h"
#include "proto/alerts_json.h"
#include "proto/health_json.h"
#include "proto/source_kind.h"
#include "query/fleet_parameters.h"
#include "query/renderers.h"

namespace perfhive {
namespace {

namespace v1 = perfhive::v1;
using json = nlohmann::json;

constexpr int64_t kNanosPerMilli = 1'000'000;

double Millis(int64_t unix_nanos) { return static_cast<double>(unix_nanos) / kNanosPerMilli; }

HttpReply JsonReply(const json& body) {
  HttpReply reply;
  reply.content_type = "application/json";
  // Stored texts are checked UTF-8 on the way out of the query service; replace rather than
  // throw should one slip through.
  reply.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  reply.headers.emplace_back("Cache-Control", "no-store");
  return reply;
}

Result<uint64_t> UnsignedParam(const HttpRequest& request, std::string_view name,
                               uint64_t fallback) {
  std::string text = request.Param(name);
  if (text.empty()) return fallback;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument(std::string(name) + "=" + EscapeForDisplay(text) +
                                   ": expected a whole number");
  }
  return value;
}

Result<int64_t> SignedParam(const HttpRequest& request, std::string_view name, int64_t fallback) {
  std::string text = request.Param(name);
  if (text.empty()) return fallback;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument(std::string(name) + "=" + EscapeForDisplay(text) +
                                   ": expected a whole number");
  }
  return value;
}

// "1", "true", "yes" (and an empty value: "?latest") are on; absent, "0", "false", "no" off.
Result<bool> FlagParam(const HttpRequest& request, std::string_view name) {
  std::vector<std::string> values = request.Params(name);
  if (values.empty()) return false;
  const std::string& text = values.front();
  if (text.empty() || text == "1" || text == "true" || text == "yes") return true;
  if (text == "0" || text == "false" || text == "no") return false;
  return Status::InvalidArgument(std::string(name) + "=" + EscapeForDisplay(text) +
                                 ": expected 1 or 0");
}

Result<v1::DetailLevel> DetailParam(const HttpRequest& request) {
  std::string text = request.Param("detail");
  if (text.empty() || text == "wizard") return v1::DETAIL_LEVEL_WIZARD;
  if (text == "novice") return v1::DETAIL_LEVEL_NOVICE;
  if (text == "advanced") return v1::DETAIL_LEVEL_ADVANCED;
  if (text == "expert") return v1::DETAIL_LEVEL_EXPERT;
  return Status::InvalidArgument("detail=" + EscapeForDisplay(text) +
                                 ": expected novice, advanced, expert or wizard");
}

const char* DetailName(v1::DetailLevel level) {
  switch (level) {
    case v1::DETAIL_LEVEL_NOVICE:
      return "novice";
    case v1::DETAIL_LEVEL_ADVANCED:
      return "advanced";
    case v1::DETAIL_LEVEL_EXPERT:
      return "expert";
    default:
      return "wizard";
  }
}

// The sample to browse: host, select (host or select required: a pattern for the host, or a
// selector, browses every host they pick) and at (a time; absent: the newest).
Result<v1::BrowseAt> BrowseParams(const HttpRequest& request, int64_t now_ns) {
  v1::BrowseAt where;
  where.set_host(request.Param("host"));
  where.set_host_selector(request.Param("select"));
  if (where.host().empty() && where.host_selector().empty()) {
    return Status::InvalidArgument(
        "host: give the host to browse, a pattern (web*), or select= (role=web)");
  }
  if (std::string at = request.Param("at"); !at.empty()) {
    Result<int64_t> time = ParseApiTime(at, now_ns);
    if (!time.ok()) return time.status().Prefixed("at: ");
    where.set_at_unix_nanos(*time);
  }
  return where;
}

// What a browse of several hosts read, into its answer `body`.
void AddBrowsedHosts(const v1::BrowsedHosts& hosts, json& body) {
  body["hosts"] = json(std::vector<std::string>(hosts.names().begin(), hosts.names().end()));
  body["without_sample"] = hosts.without_sample();
  body["oldest_sample_ms"] = Millis(hosts.oldest_sample_unix_nanos());
  body["newest_sample_ms"] = Millis(hosts.newest_sample_unix_nanos());
}

// Which of the hosts browsed have a name, into its `item`: {"hosts": 5, "lacking": ["WEB03"]},
// `prefix` before each key.
void AddPresence(const v1::Presence& presence, json& item, const std::string& prefix = "") {
  item[prefix + "hosts"] = presence.hosts();
  item[prefix + "lacking"] =
      json(std::vector<std::string>(presence.lacking().begin(), presence.lacking().end()));
}

Result<std::string> ObjectParam(const HttpRequest& request) {
  std::string object = request.Param("object");
  if (object.empty()) return Status::InvalidArgument("object: give the object's name or index");
  return object;
}

}  // namespace

Result<int64_t> ParseApiTime(std::string_view text, int64_t now_ns) {
  if (text == "now") return now_ns;
  if (text.starts_with('-')) {
    Result<int64_t> span = ParseSpan(text.substr(1));
    if (!span.ok()) return span.status();
    return now_ns - *span;
  }
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t millis = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), millis);
    if (error != std::errc() || end != text.data() + text.size() ||
        millis > INT64_MAX / kNanosPerMilli) {
      return Status::InvalidArgument("\"" + std::string(text) + "\" is too large for a time");
    }
    return millis * kNanosPerMilli;
  }
  Result<int64_t> time = ParseRfc3339(text);
  if (!time.ok()) {
    return Status::InvalidArgument(EscapeForDisplay(time.error()) +
                                   "; give Unix milliseconds, RFC 3339 "
                                   "(2026-11-26T15:00:00Z), now, or -5m, -1h, -24h");
  }
  return time;
}

Result<query::ReadRequest> ReadRequestFromParams(const HttpRequest& request, int64_t now_ns) {
  query::ReadRequest read;
  read.paths = request.Params("path");
  if (read.paths.empty()) {
    return Status::InvalidArgument(
        "path: give at least one counter path, e.g. "
        "path=\\\\*\\Processor(*)\\% Processor Time");
  }
  for (const char* name : {"from", "to"}) {
    std::string text = request.Param(name);
    if (text.empty()) continue;
    Result<int64_t> time = ParseApiTime(text, now_ns);
    if (!time.ok()) return time.status().Prefixed(std::string(name) + ": ");
    if (*time <= 0) return Status::InvalidArgument(std::string(name) + ": before 1970");
    (name == std::string_view("from") ? read.from_ns : read.to_ns) = *time;
  }
  if (std::string step = request.Param("step"); !step.empty()) {
    Result<int64_t> span = ParseSpan(step);
    if (!span.ok()) return span.status().Prefixed("step: ");
    read.step_ns = *span;
  }
  Result<bool> statistics = FlagParam(request, "statistics");
  if (!statistics.ok()) return statistics.status();
  read.statistics = *statistics;
  Result<bool> latest = FlagParam(request, "latest");
  if (!latest.ok()) return latest.status();
  read.latest_only = *latest;
  Result<bool> cap_100 = FlagParam(request, "cap100");
  if (!cap_100.ok()) return cap_100.status();
  read.format.cap_100 = *cap_100;
  Result<int64_t> scale = SignedParam(request, "scale", 0);
  if (!scale.ok()) return scale.status();
  // PdhSetCounterScaleFactor takes -7 to 7.
  if (*scale < -7 || *scale > 7) return Status::InvalidArgument("scale: from -7 to 7");
  read.format.scale_factor = static_cast<int>(*scale);
  Result<uint64_t> max_points = UnsignedParam(request, "max_points", 0);
  if (!max_points.ok()) return max_points.status();
  read.max_points = *max_points;
  query::FleetParameters fleet;
  fleet.select = request.Param("select");
  fleet.aggregates = request.Param("aggregate");
  fleet.group_by = request.Param("group_by");
  fleet.rank_by = request.Param("rank_by");
  fleet.compare = request.Param("compare");
  fleet.held = request.Param("held");
  for (auto [name, count] : {std::pair{"top", &fleet.top}, std::pair{"bottom", &fleet.bottom}}) {
    Result<uint64_t> value = UnsignedParam(request, name, 0);
    if (!value.ok()) return value.status();
    *count = *value;
  }
  if (Status status = query::ApplyFleetParameters(fleet, read); !status.ok()) return status;
  return read;
}

int HttpStatusOf(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kOutOfRange:
      return 400;
    case StatusCode::kUnauthenticated:
      return 401;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kResourceExhausted:
      return 413;
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
      return 503;
    default:
      return 500;
  }
}

HttpReply JsonError(const Status& status) {
  json error = {{"code", StatusCodeName(status.code())}, {"message", status.message()}};
  if (status.column()) error["column"] = *status.column();
  HttpReply reply = JsonReply({{"error", std::move(error)}});
  reply.status = HttpStatusOf(status);
  return reply;
}

HttpReply HttpApi::Handle(const HttpRequest& request, int64_t now_ns) {
  if (request.method != "GET" && request.method != "HEAD") {
    HttpReply reply =
        JsonError(Status(StatusCode::kInvalidArgument,
                         request.method + " " + request.path + ": the API answers GET only"));
    reply.status = 405;
    reply.headers.emplace_back("Allow", "GET, HEAD");
    return reply;
  }
  const std::string& path = request.path;
  if (path == "/api/v1/hosts") return Hosts(request, now_ns);
  if (path == "/api/v1/objects") return Objects(request, now_ns);
  if (path == "/api/v1/counters") return Counters(request, now_ns);
  if (path == "/api/v1/instances") return Instances(request, now_ns);
  if (path == "/api/v1/read") return Read(request, now_ns, /*csv=*/false);
  if (path == "/api/v1/read.csv") return Read(request, now_ns, /*csv=*/true);
  if (path == "/api/v1/alerts") return Alerts();
  if (path == "/api/v1/health") return Health(request, now_ns);
  return JsonError(Status::NotFound(
      "no API call " + EscapeForDisplay(path) +
      "; there are /api/v1/hosts, objects, counters, instances, read, read.csv, alerts and "
      "health"));
}

HttpReply HttpApi::Health(const HttpRequest& request, int64_t now_ns) {
  v1::HealthRequest health;
  health.set_hosts(request.Param("pattern"));
  health.set_host_selector(request.Param("select"));
  health.set_at_unix_nanos(now_ns);
  for (const char* name : {"at", "from"}) {
    const std::string& text = request.Param(name);
    if (text.empty()) continue;
    Result<int64_t> time = ParseApiTime(text, now_ns);
    if (!time.ok()) return JsonError(time.status().Prefixed(std::string(name) + ": "));
    if (*time <= 0) return JsonError(Status::InvalidArgument(std::string(name) + ": before 1970"));
    if (name == std::string_view("at")) {
      health.set_at_unix_nanos(*time);
    } else {
      health.set_from_unix_nanos(*time);
    }
  }
  if (request.params.contains("peers_by")) health.set_peers_by(request.Param("peers_by"));
  Result<v1::HealthResponse> answer = query_.FleetHealth(health);
  if (!answer.ok()) return JsonError(answer.status());
  HttpReply reply = JsonReply(json::object());
  // The same schema, keys in the same order, as `perfhive health --format json`.
  reply.body = HealthJson(*answer).dump(-1, ' ', false, json::error_handler_t::replace);
  return reply;
}

HttpReply HttpApi::Alerts() {
  HttpReply reply = JsonReply(json::object());
  // The same schema, keys in the same order, as `perfhive alerts --format json`.
  reply.body = AlertsJson(query_.Alerts()).dump(-1, ' ', false, json::error_handler_t::replace);
  return reply;
}

HttpReply HttpApi::Hosts(const HttpRequest& request, int64_t now_ns) {
  v1::ListHostsRequest list;
  list.set_pattern(request.Param("pattern"));
  list.set_select(request.Param("select"));
  Result<v1::ListHostsResponse> answer = query_.Hosts(list);
  if (!answer.ok()) return JsonError(answer.status());
  json hosts = json::array();
  for (const v1::HostInfo& host : answer->hosts()) {
    hosts.push_back({
        {"name", host.name()},
        {"os", host.os()},
        {"os_version", host.os_version()},
        {"source", SourceKindName(host.source_kind())},
        {"agent_version", host.agent_version()},
        {"first_seen_ms", Millis(host.first_seen_unix_nanos())},
        {"last_seen_ms", Millis(host.last_seen_unix_nanos())},
        {"last_sample_ms", Millis(host.last_sample_unix_nanos())},
        {"snapshots", host.snapshots()},
        {"stored_bytes", host.stored_bytes()},
        {"refused", host.refused()},
        {"last_error", host.last_error()},
        {"last_error_ms", Millis(host.last_error_unix_nanos())},
        {"credential", host.credential()},
        {"credential_expires_ms", Millis(host.credential_expires_unix_nanos())},
        {"plan_revision", host.plan_revision()},
        {"plan_latest", host.plan_latest()},
        {"plan_report", host.plan_report()},
        // Keys in order, whatever order the message's map holds them in.
        {"labels", std::map<std::string, std::string>(host.labels().begin(), host.labels().end())},
    });
  }
  return JsonReply({{"now_ms", Millis(now_ns)}, {"hosts", std::move(hosts)}});
}

HttpReply HttpApi::Objects(const HttpRequest& request, int64_t now_ns) {
  v1::ListObjectsRequest list;
  Result<v1::BrowseAt> where = BrowseParams(request, now_ns);
  if (!where.ok()) return JsonError(where.status());
  Result<v1::DetailLevel> detail = DetailParam(request);
  if (!detail.ok()) return JsonError(detail.status());
  *list.mutable_where() = *where;
  list.set_detail(*detail);
  Result<v1::ListObjectsResponse> answer = query_.Objects(list);
  if (!answer.ok()) return JsonError(answer.status());
  const bool fleet = answer->has_fleet();
  json objects = json::array();
  for (const v1::ObjectInfo& object : answer->objects()) {
    json item = {{"name", object.name()},           {"index", object.index()},
                 {"help", object.help()},           {"detail", DetailName(object.detail())},
                 {"instances", object.instances()}, {"counters", object.counters()}};
    if (fleet) AddPresence(object.presence(), item);
    objects.push_back(std::move(item));
  }
  if (!fleet) {
    return JsonReply({{"host", answer->host()},
                      {"sample_ms", Millis(answer->sample_unix_nanos())},
                      {"objects", std::move(objects)}});
  }
  json body;
  AddBrowsedHosts(answer->fleet(), body);
  body["objects"] = std::move(objects);
  return JsonReply(body);
}

HttpReply HttpApi::Counters(const HttpRequest& request, int64_t now_ns) {
  v1::ListCountersRequest list;
  Result<v1::BrowseAt> where = BrowseParams(request, now_ns);
  if (!where.ok()) return JsonError(where.status());
  Result<std::string> object = ObjectParam(request);
  if (!object.ok()) return JsonError(object.status());
  Result<v1::DetailLevel> detail = DetailParam(request);
  if (!detail.ok()) return JsonError(detail.status());
  *list.mutable_where() = *where;
  list.set_object(*object);
  list.set_detail(*detail);
  Result<v1::ListCountersResponse> answer = query_.Counters(list);
  if (!answer.ok()) return JsonError(answer.status());
  const bool fleet = answer->has_fleet();
  json counters = json::array();
  for (const v1::CounterInfo& counter : answer->counters()) {
    json item = {{"name", counter.name()},
                 {"index", counter.index()},
                 {"help", counter.help()},
                 {"detail", DetailName(counter.detail())},
                 {"type", counter.type()},
                 {"type_name", counter.type_name()},
                 {"default_scale", counter.default_scale()},
                 {"unit", counter.unit()}};
    if (fleet) AddPresence(counter.presence(), item);
    counters.push_back(std::move(item));
  }
  if (!fleet) {
    return JsonReply({{"host", answer->host()},
                      {"object", answer->object()},
                      {"sample_ms", Millis(answer->sample_unix_nanos())},
                      {"counters", std::move(counters)}});
  }
  json body;
  AddBrowsedHosts(answer->fleet(), body);
  body["object"] = answer->object();
  AddPresence(answer->object_presence(), body, "object_");
  body["counters"] = std::move(counters);
  return JsonReply(body);
}

HttpReply HttpApi::Instances(const HttpRequest& request, int64_t now_ns) {
  v1::ListInstancesRequest list;
  Result<v1::BrowseAt> where = BrowseParams(request, now_ns);
  if (!where.ok()) return JsonError(where.status());
  Result<std::string> object = ObjectParam(request);
  if (!object.ok()) return JsonError(object.status());
  *list.mutable_where() = *where;
  list.set_object(*object);
  Result<v1::ListInstancesResponse> answer = query_.Instances(list);
  if (!answer.ok()) return JsonError(answer.status());
  if (answer->has_fleet()) {
    json instances = json::array();
    for (const v1::InstanceInfo& instance : answer->instances()) {
      json item = {{"name", instance.name()}};
      AddPresence(instance.presence(), item);
      instances.push_back(std::move(item));
    }
    json body;
    AddBrowsedHosts(answer->fleet(), body);
    body["object"] = answer->object();
    AddPresence(answer->object_presence(), body, "object_");
    body["instances"] = std::move(instances);
    return JsonReply(body);
  }
  json instances = json::array();
  for (const v1::InstanceInfo& instance : answer->instances()) {
    json item = {{"name", instance.name()}, {"identity", instance.identity()}};
    // "pid 1234" or "pid 1234 tid 5678", as the CLI shows it; the numbers for scripts.
    std::istringstream words(instance.identity());
    std::string word;
    uint64_t number = 0;
    while (words >> word >> number) item[word] = number;
    instances.push_back(std::move(item));
  }
  return JsonReply({{"host", answer->host()},
                    {"object", answer->object()},
                    {"sample_ms", Millis(answer->sample_unix_nanos())},
                    {"instances", std::move(instances)}});
}

HttpReply HttpApi::Read(const HttpRequest& request, int64_t now_ns, bool csv) {
  Result<query::ReadRequest> read = ReadRequestFromParams(request, now_ns);
  if (!read.ok()) return JsonError(read.status());
  Result<query::QueryAnswer> answer = query_.reads().Read(*read);
  if (!answer.ok()) return JsonError(answer.status());
  // The renderers of `perfhive query --format csv` and `--format json`.
  std::ostringstream out;
  HttpReply reply;
  if (csv) {
    query::RenderCsv(*answer, out);
    reply.content_type = "text/csv; charset=utf-8";
    reply.headers.emplace_back("Content-Disposition", "attachment; filename=\"perfhive.csv\"");
  } else {
    query::RenderJson(*answer, {}, out);
    reply.content_type = "application/json";
  }
  reply.body = std::move(out).str();
  reply.headers.emplace_back("Cache-Control", "no-store");
  return reply;
}

}  // namespace perfhive
