#include "cli/query_commands.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/error_text.h"
#include "cli/fleet_browse_output.h"
#include "cli/stored_snapshot_commands.h"
#include "perfdata/counter_path.h"
#include "perfdata/display_text.h"
#include "perfdata/name_pattern.h"
#include "perfdata/time_text.h"
#include "perfhive/v1/query.grpc.pb.h"
#include "port/env.h"
#include "proto/series_conversion.h"
#include "query/browse.h"
#include "query/renderers.h"
#include "query/text_table.h"

namespace perfhive::cli {
namespace {

namespace v1 = perfhive::v1;

size_t TerminalWidth() {
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0) return size.ws_col;
  return 0;
}

// Every path parses before anything is asked, so a typo is pointed at, not sent.
Status CheckPaths(const std::vector<std::string>& paths) {
  if (paths.empty()) return Status::InvalidArgument("give at least one counter path");
  for (const std::string& text : paths) {
    Result<CounterPath> path = ParseCounterPath(text);
    if (!path.ok()) return WithPathDisplay(path.status(), text);
  }
  return Status();
}

// Sends a Read and gathers the answer back into the query model.
Result<query::QueryAnswer> Read(const ServerConnection& server, const v1::ReadRequest& request,
                                std::chrono::milliseconds timeout) {
  auto stub = v1::Query::NewStub(server.channel());
  auto context = server.NewContext(timeout);
  auto reader = stub->Read(context.get(), request);
  query::QueryAnswer answer;
  v1::ReadResponse response;
  while (reader->Read(&response)) {
    for (const v1::Series& series : response.series()) {
      Result<query::Series> converted = SeriesFromProto(series);
      if (!converted.ok()) {
        context->TryCancel();
        return converted.status().Prefixed("the server's answer: ");
      }
      answer.series.push_back(std::move(converted).value());
    }
    for (const std::string& warning : response.warnings()) answer.warnings.push_back(warning);
    answer.held_checked += response.held_checked();
  }
  if (grpc::Status status = reader->Finish(); !status.ok()) return server.Explain(status);
  return answer;
}

void Render(const query::QueryAnswer& answer, QueryFormat format, bool raw, size_t width,
            std::ostream& out) {
  query::RenderOptions options{.raw = raw, .width = width};
  // Rendered into memory and written at once: std::cout shares stdio's buffer, so each of the
  // renderer's small writes would otherwise be a locked fwrite (a fifth of the CLI's CPU for a
  // whole Process object).
  std::ostringstream rendered;
  switch (format) {
    case QueryFormat::kTable:
      query::RenderTable(answer, options, rendered);
      break;
    case QueryFormat::kCsv:
      query::RenderCsv(answer, rendered);
      break;
    case QueryFormat::kJson:
      query::RenderJson(answer, options, rendered);
      break;
  }
  const std::string text = std::move(rendered).str();
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// "\\HOST\Object(...)\..." as host and object; `need_object` says whether an object must follow.
// Without one, an empty target is every host.
Status SplitTarget(const std::string& target, bool need_object, std::string& host,
                   std::string& object) {
  if (!need_object && target.empty()) {
    host = "*";
    return Status();
  }
  if (!target.starts_with("\\\\")) {
    return Status::InvalidArgument("expected \\\\HOST" +
                                   std::string(need_object ? "\\OBJECT" : "") + ", got \"" +
                                   target + "\"");
  }
  std::string rest = target.substr(2);
  size_t slash = rest.find('\\');
  host = rest.substr(0, slash);
  object = slash == std::string::npos ? "" : rest.substr(slash + 1);
  // An instance part or a counter after the object is not needed to browse.
  object = object.substr(0, std::min(object.find('('), object.find('\\')));
  if (host.empty()) return Status::InvalidArgument("no host in \"" + target + "\"");
  if (need_object && object.empty()) {
    return Status::InvalidArgument("no object in \"" + target + "\": write \\\\" + host +
                                   "\\OBJECT, e.g. \\\\" + host + "\\Process");
  }
  return Status();
}

// A counter's explain text as the host wrote it, line by line (CR-LF or LF), each line escaped.
std::string HelpForDisplay(std::string_view help) {
  std::string shown;
  for (size_t start = 0; start <= help.size();) {
    size_t end = std::min(help.find('\n', start), help.size());
    std::string_view line = help.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    shown += (start == 0 ? "" : "\n") + EscapeForDisplay(line);
    start = end + 1;
  }
  return shown;
}

// Which samples of which hosts to browse; a selector that does not parse is named before the
// server is asked.
Result<v1::BrowseAt> BrowseAt(const std::string& host, const BrowseOptions& options) {
  Result<query::HostSelector> selector = query::HostSelector::Parse(options.select);
  if (!selector.ok()) return selector.status().Prefixed("--select: ");
  v1::BrowseAt where;
  where.set_host(host);
  where.set_host_selector(selector->text());
  if (!options.at.empty()) {
    Result<int64_t> time = ParseRfc3339(options.at);
    if (!time.ok()) return time.status().Prefixed("--at: ");
    where.set_at_unix_nanos(*time);
  }
  return where;
}

Result<v1::DetailLevel> DetailOf(const std::string& text) {
  if (text.empty()) return v1::DETAIL_LEVEL_UNSPECIFIED;
  std::optional<uint32_t> level = query::ParseDetailLevel(text);
  if (!level) {
    return Status::InvalidArgument("unknown detail level \"" + text +
                                   "\": use novice, advanced, expert or wizard");
  }
  return static_cast<v1::DetailLevel>(*level);
}

// A server older than the fleet's parameters ignores them and answers every host's series: say
// so rather than show an answer to another question.
Status CheckFleetAnswer(const query::FleetParameters& fleet, const query::QueryAnswer& answer) {
  const size_t ranked = std::max(fleet.top, fleet.bottom);
  const bool aggregated = std::all_of(answer.series.begin(), answer.series.end(),
                                      [](const query::Series& s) { return s.aggregate; });
  const bool compared = std::any_of(answer.series.begin(), answer.series.end(),
                                    [](const query::Series& s) { return s.baseline; });
  const bool unchecked = !fleet.held.empty() && answer.held_checked == 0 && !answer.series.empty();
  if ((!fleet.aggregates.empty() && !aggregated) || (ranked > 0 && answer.series.size() > ranked) ||
      (!fleet.compare.empty() && !compared && answer.warnings.empty()) || unchecked) {
    return Status::Error(
        "the server does not know aggregates, rankings, conditions or host selectors: upgrade "
        "perfhive-server to this perfhive's version");
  }
  return Status();
}

// With a condition: kAborted (exit 6, kExitHolds) naming how many series hold it at their last
// value, so that scripts and monitoring checks can act on it; else what was checked.
Status HeldNow(const std::string& condition, const query::QueryAnswer& answer) {
  size_t holding = 0;
  for (const query::Series& series : answer.series) {
    holding += !series.held.empty() && series.held.back().ongoing;
  }
  const std::string of = " of " + std::to_string(answer.held_checked) + " series ";
  if (holding > 0) {
    return Status(StatusCode::kAborted,
                  std::to_string(holding) + of + "hold \"" + condition + "\" at their last value");
  }
  std::cerr << "perfhive: " << answer.series.size() << of << "held \"" << condition
            << "\" in the range; none holds at its last value\n";
  return Status();
}

// A server older than browsing several hosts ignores the selector and answers for one host: say
// so rather than show that host as if it were the hosts selected.
Status CheckBrowsedSeveral(const v1::BrowseAt& where, bool several) {
  if (!several && (!where.host_selector().empty() || HasWildcard(where.host()))) {
    return Status::Error(
        "the server does not browse several hosts at once: upgrade perfhive-server to this "
        "perfhive's version");
  }
  return Status();
}

}  // namespace

Status RunQuery(const ServerConnection& server, const QueryOptions& options, std::ostream& out) {
  if (Status status = CheckPaths(options.paths); !status.ok()) return status;
  v1::ReadRequest request;
  for (const std::string& path : options.paths) request.add_paths(path);
  if (!options.since.empty()) {
    if (!options.from.empty()) return Status::InvalidArgument("give --since or --from, not both");
    Result<int64_t> span = ParseSpan(options.since);
    if (!span.ok()) return span.status().Prefixed("--since: ");
    request.set_from_unix_nanos(UnixNanosNow() - *span);
  }
  if (!options.from.empty()) {
    Result<int64_t> from = ParseRfc3339(options.from);
    if (!from.ok()) return from.status().Prefixed("--from: ");
    request.set_from_unix_nanos(*from);
  }
  if (!options.to.empty()) {
    Result<int64_t> to = ParseRfc3339(options.to);
    if (!to.ok()) return to.status().Prefixed("--to: ");
    request.set_to_unix_nanos(*to);
  }
  if (!options.step.empty()) {
    Result<int64_t> step = ParseSpan(options.step);
    if (!step.ok() || *step == 0)
      return Status::InvalidArgument("--step: expected a span, e.g. 1m");
    request.set_step_nanos(*step);
  }
  request.set_statistics(options.statistics);
  request.set_raw(options.raw);
  request.set_scale_factor(options.scale);
  request.set_max_points(options.max_points);
  const query::FleetParameters& fleet = options.fleet;
  // Checked here too, so a mistake is named before the server is asked.
  query::ReadRequest checked;
  if (Status status = query::ApplyFleetParameters(fleet, checked); !status.ok()) return status;
  request.set_host_selector(fleet.select);
  request.set_aggregates(fleet.aggregates);
  request.set_group_by(fleet.group_by);
  request.set_top(static_cast<uint32_t>(fleet.top));
  request.set_bottom(static_cast<uint32_t>(fleet.bottom));
  request.set_rank_by(fleet.rank_by);
  request.set_compare(fleet.compare);
  request.set_held(fleet.held);
  Result<query::QueryAnswer> answer = Read(server, request, std::chrono::minutes(10));
  if (!answer.ok()) return answer.status();
  if (Status status = CheckFleetAnswer(fleet, *answer); !status.ok()) return status;
  // The server says why each path selected nothing on each host, one line each.
  if (answer->series.empty() && answer->held_checked == 0) {
    if (answer->warnings.empty()) {  // a server from before it said why
      return Status::NotFound(
          "no counter matches those paths in that range (`perfhive snapshots \\\\HOST` lists the "
          "stored times)");
    }
    std::string message = "no counter matches those paths:";
    for (const std::string& warning : answer->warnings) message += "\n  " + warning;
    return Status::NotFound(message);
  }
  // Warnings go to stderr after the output, so the table and the CSV hold values only; JSON keeps
  // them in "warnings" too.
  std::vector<std::string> warnings = answer->warnings;
  if (options.format != QueryFormat::kJson) answer->warnings.clear();
  // A condition nothing held leaves no table to show, only what was checked (HeldNow).
  if (!answer->series.empty() || options.format == QueryFormat::kJson) {
    Render(*answer, options.format, options.raw, options.width ? options.width : TerminalWidth(),
           out);
  }
  out.flush();
  for (const std::string& warning : warnings) {
    std::cerr << "perfhive: warning: " << EscapeForDisplay(warning) << "\n";
  }
  if (!fleet.held.empty()) return HeldNow(fleet.held, *answer);
  return Status();
}

Status RunWatch(const ServerConnection& server, const WatchOptions& options, std::ostream& out) {
  if (Status status = CheckPaths(options.paths); !status.ok()) return status;
  Result<int64_t> interval = ParseSpan(options.interval);
  if (!interval.ok() || *interval == 0) {
    return Status::InvalidArgument("--interval: expected a span, e.g. 1s");
  }
  v1::ReadRequest request;
  for (const std::string& path : options.paths) request.add_paths(path);
  request.set_latest_only(true);
  if (Result<query::HostSelector> selector = query::HostSelector::Parse(options.select);
      !selector.ok()) {
    return selector.status();
  }
  request.set_host_selector(options.select);
  int64_t last_shown = 0;
  int rounds = 0;
  bool header_written = false;
  for (;;) {
    Result<query::QueryAnswer> answer = Read(server, request, std::chrono::seconds(30));
    if (!answer.ok()) return answer.status();
    int64_t newest = last_shown;
    for (query::Series& series : answer->series) {
      // A first sample has no value yet; typeperf too waits for the second.
      std::erase_if(series.points, [&](const query::Point& point) {
        return point.time_ns <= last_shown || !IsSuccess(point.value.status);
      });
      for (const query::Point& point : series.points) newest = std::max(newest, point.time_ns);
    }
    std::erase_if(answer->series, [](const query::Series& s) { return s.points.empty(); });
    if (!answer->series.empty()) {
      if (options.format == QueryFormat::kCsv && header_written) {
        // typeperf writes the header once, then a row per sample.
        std::ostringstream csv;
        query::RenderCsv(*answer, csv);
        std::string text = csv.str();
        out << text.substr(text.find('\n') + 1);
      } else {
        Render(*answer, options.format, false, TerminalWidth(), out);
      }
      header_written = true;
      out.flush();
      // A full disk would otherwise be written to, in vain, until interrupted.
      if (!out) return OutputNotWritten(errno);
      last_shown = newest;
      if (options.count > 0 && ++rounds >= options.count) return Status();
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds(*interval));
  }
}

Status RunObjects(const ServerConnection& server, const BrowseOptions& options, std::ostream& out) {
  std::string host, object;
  if (Status status = SplitTarget(options.target, false, host, object); !status.ok()) {
    return status;
  }
  Result<v1::BrowseAt> where = BrowseAt(host, options);
  if (!where.ok()) return where.status();
  Result<v1::DetailLevel> detail = DetailOf(options.detail);
  if (!detail.ok()) return detail.status();
  v1::ListObjectsRequest request;
  *request.mutable_where() = *where;
  request.set_detail(*detail);
  v1::ListObjectsResponse response;
  auto context = server.NewContext();
  if (grpc::Status status =
          v1::Query::NewStub(server.channel())->ListObjects(context.get(), request, &response);
      !status.ok()) {
    return server.Explain(status);
  }
  if (Status status = CheckBrowsedSeveral(*where, response.has_fleet()); !status.ok()) {
    return status;
  }
  if (response.has_fleet()) {
    PrintFleetObjects(*where, response, options.format, out);
    return Status();
  }
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json objects = nlohmann::ordered_json::array();
    for (const v1::ObjectInfo& o : response.objects()) {
      objects.push_back({{"name", o.name()},
                         {"index", o.index()},
                         {"instances", o.instances()},
                         {"counters", o.counters()},
                         {"detail", query::DetailLevelName(o.detail())},
                         {"help", o.help()}});
    }
    out << nlohmann::ordered_json{{"host", response.host()},
                                  {"time", FormatRfc3339(response.sample_unix_nanos())},
                                  {"objects", objects}}
               .dump(2)
        << "\n";
    return Status();
  }
  std::vector<std::vector<std::string>> rows = {
      {"OBJECT", "INDEX", "INSTANCES", "COUNTERS", "DETAIL"}};
  for (const v1::ObjectInfo& o : response.objects()) {
    rows.push_back({o.name(), std::to_string(o.index()),
                    o.instances() < 0 ? "-" : std::to_string(o.instances()),
                    std::to_string(o.counters()), query::DetailLevelName(o.detail())});
  }
  out << "\\\\" << EscapeForDisplay(response.host()) << " at "
      << FormatRfc3339(response.sample_unix_nanos()) << "\n";
  query::PrintTable(out, rows);
  return Status();
}

namespace {

// The counters of `object` on `where`'s hosts.
Result<v1::ListCountersResponse> ListCountersOf(const ServerConnection& server,
                                                const v1::BrowseAt& where,
                                                const std::string& object,
                                                const BrowseOptions& options) {
  Result<v1::DetailLevel> detail = DetailOf(options.detail);
  if (!detail.ok()) return detail.status();
  v1::ListCountersRequest request;
  *request.mutable_where() = where;
  request.set_object(object);
  request.set_detail(*detail);
  v1::ListCountersResponse response;
  auto context = server.NewContext();
  if (grpc::Status status =
          v1::Query::NewStub(server.channel())->ListCounters(context.get(), request, &response);
      !status.ok()) {
    return server.Explain(status);
  }
  if (Status status = CheckBrowsedSeveral(where, response.has_fleet()); !status.ok()) {
    return status;
  }
  return response;
}

}  // namespace

Status RunCounters(const ServerConnection& server, const BrowseOptions& options,
                   std::ostream& out) {
  std::string host, object;
  if (Status status = SplitTarget(options.target, true, host, object); !status.ok()) {
    return status;
  }
  Result<v1::BrowseAt> where = BrowseAt(host, options);
  if (!where.ok()) return where.status();
  Result<v1::ListCountersResponse> response = ListCountersOf(server, *where, object, options);
  if (!response.ok()) return response.status();
  if (response->has_fleet()) {
    PrintFleetCounters(*where, *response, options.format, out);
    return Status();
  }
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json counters = nlohmann::ordered_json::array();
    for (const v1::CounterInfo& c : response->counters()) {
      counters.push_back({{"name", c.name()},
                          {"index", c.index()},
                          {"type", c.type_name()},
                          {"unit", c.unit()},
                          {"detail", query::DetailLevelName(c.detail())},
                          {"default_scale", c.default_scale()},
                          {"help", c.help()}});
    }
    out << nlohmann::ordered_json{{"host", response->host()},
                                  {"object", response->object()},
                                  {"counters", counters}}
               .dump(2)
        << "\n";
    return Status();
  }
  std::vector<std::vector<std::string>> rows = {{"COUNTER", "INDEX", "TYPE", "UNIT", "DETAIL"}};
  for (const v1::CounterInfo& c : response->counters()) {
    rows.push_back({c.name(), std::to_string(c.index()), c.type_name(),
                    c.unit().empty() ? "-" : c.unit(), query::DetailLevelName(c.detail())});
  }
  out << "\\\\" << EscapeForDisplay(response->host()) << "\\"
      << EscapeForDisplay(response->object()) << "\n";
  query::PrintTable(out, rows);
  return Status();
}

Status RunInstances(const ServerConnection& server, const BrowseOptions& options,
                    std::ostream& out) {
  std::string host, object;
  if (Status status = SplitTarget(options.target, true, host, object); !status.ok()) {
    return status;
  }
  Result<v1::BrowseAt> where = BrowseAt(host, options);
  if (!where.ok()) return where.status();
  v1::ListInstancesRequest request;
  *request.mutable_where() = *where;
  request.set_object(object);
  v1::ListInstancesResponse response;
  auto context = server.NewContext();
  if (grpc::Status status =
          v1::Query::NewStub(server.channel())->ListInstances(context.get(), request, &response);
      !status.ok()) {
    return server.Explain(status);
  }
  if (Status status = CheckBrowsedSeveral(*where, response.has_fleet()); !status.ok()) {
    return status;
  }
  if (response.has_fleet()) {
    PrintFleetInstances(*where, response, options.format, out);
    return Status();
  }
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json instances = nlohmann::ordered_json::array();
    for (const v1::InstanceInfo& i : response.instances()) {
      instances.push_back({{"name", i.name()}, {"identity", i.identity()}});
    }
    out << nlohmann::ordered_json{{"host", response.host()},
                                  {"object", response.object()},
                                  {"time", FormatRfc3339(response.sample_unix_nanos())},
                                  {"instances", instances}}
               .dump(2)
        << "\n";
    return Status();
  }
  std::vector<std::vector<std::string>> rows = {{"INSTANCE", "IDENTITY"}};
  for (const v1::InstanceInfo& i : response.instances()) {
    rows.push_back({i.name(), i.identity().empty() ? "-" : i.identity()});
  }
  out << "\\\\" << EscapeForDisplay(response.host()) << "\\" << EscapeForDisplay(response.object())
      << " at " << FormatRfc3339(response.sample_unix_nanos()) << "\n";
  query::PrintTable(out, rows);
  return Status();
}

Status RunExplain(const ServerConnection& server, const BrowseOptions& options, std::ostream& out) {
  Result<CounterPath> path = ParseCounterPath(options.target);
  if (!path.ok()) return WithPathDisplay(path.status(), options.target);
  if (path->machine.empty() || HasWildcard(path->machine)) {
    return Status::InvalidArgument("name the host: \\\\HOST\\Object\\Counter");
  }
  BrowseOptions all = options;
  all.detail.clear();
  Result<v1::BrowseAt> where = BrowseAt(path->machine, all);
  if (!where.ok()) return where.status();
  Result<v1::ListCountersResponse> response = ListCountersOf(server, *where, path->object, all);
  if (!response.ok()) return response.status();
  for (const v1::CounterInfo& c : response->counters()) {
    if (!MatchesPattern(path->counter, c.name()) && path->counter != std::to_string(c.index())) {
      continue;
    }
    out << "\\\\" << EscapeForDisplay(response->host()) << "\\"
        << EscapeForDisplay(response->object()) << "\\" << EscapeForDisplay(c.name()) << "\n"
        << "  index " << c.index() << ", " << c.type_name() << ", unit "
        << (c.unit().empty() ? "none" : c.unit()) << ", detail "
        << query::DetailLevelName(c.detail()) << ", chart scale 10^" << c.default_scale()
        << " (never applied to values)\n\n"
        << (c.help().empty() ? "(the host's title database has no explain text for it)"
                             : HelpForDisplay(c.help()))
        << "\n";
    return Status();
  }
  std::string names;
  for (const v1::CounterInfo& c : response->counters()) {
    names += (names.empty() ? "" : ", ") + c.name();
  }
  return Status::NotFound("no counter \"" + path->counter + "\" in " + response->object() + " on " +
                          response->host() + "; it has: " + names);
}

}  // namespace perfhive::cli
