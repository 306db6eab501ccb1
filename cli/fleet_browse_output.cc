#include "cli/fleet_browse_output.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perfdata/display_text.h"
#include "perfdata/time_text.h"
#include "query/browse.h"
#include "query/text_table.h"

namespace perfhive::cli {
namespace {

namespace v1 = perfhive::v1;
using Json = nlohmann::ordered_json;

// "\\web* (role=web)": what was browsed, as asked.
std::string Asked(const v1::BrowseAt& where, const std::string& object) {
  std::string asked = "\\\\" + (where.host().empty() ? std::string("*") : where.host());
  if (!object.empty()) asked += "\\" + object;
  if (!where.host_selector().empty()) asked += " (" + where.host_selector() + ")";
  return EscapeForDisplay(asked);
}

// "sampled at T", or "sampled T1 to T2" when the hosts' samples differ; and the hosts selected
// without a sample by then.
std::string Sampled(const v1::BrowsedHosts& hosts) {
  std::string text = hosts.oldest_sample_unix_nanos() == hosts.newest_sample_unix_nanos()
                         ? "sampled at " + FormatRfc3339(hosts.newest_sample_unix_nanos())
                         : "sampled " + FormatRfc3339(hosts.oldest_sample_unix_nanos()) + " to " +
                               FormatRfc3339(hosts.newest_sample_unix_nanos());
  if (hosts.without_sample() > 0) {
    text += "; " + std::to_string(hosts.without_sample()) + " more selected had no sample by then";
  }
  return text;
}

// "5 of 6".
std::string HostsCell(const v1::Presence& presence, const v1::BrowsedHosts& hosts) {
  return std::to_string(presence.hosts()) + " of " + std::to_string(hosts.names_size());
}

// "WEB03, WEB07, +12 more", or "-" when every host has it.
std::string LackingCell(const v1::Presence& presence, const v1::BrowsedHosts& hosts) {
  const size_t lacking = static_cast<size_t>(hosts.names_size()) - presence.hosts();
  if (lacking == 0) return "-";
  std::string cell;
  size_t shown = 0;
  for (; shown < kLackingShown && shown < static_cast<size_t>(presence.lacking_size()); ++shown) {
    cell += (shown == 0 ? "" : ", ") + presence.lacking(static_cast<int>(shown));
  }
  if (lacking > shown) cell += ", +" + std::to_string(lacking - shown) + " more";
  return cell;
}

Json HostsJson(const v1::BrowsedHosts& hosts) {
  return {{"hosts", std::vector<std::string>(hosts.names().begin(), hosts.names().end())},
          {"without_sample", hosts.without_sample()},
          {"oldest_time", FormatRfc3339(hosts.oldest_sample_unix_nanos())},
          {"newest_time", FormatRfc3339(hosts.newest_sample_unix_nanos())}};
}

void AddPresence(const v1::Presence& presence, Json& item, const std::string& prefix = "") {
  item[prefix + "hosts"] = presence.hosts();
  item[prefix + "lacking"] =
      std::vector<std::string>(presence.lacking().begin(), presence.lacking().end());
}

// The heading of an object's counters or instances: on how many hosts the object is.
std::string ObjectHeading(const v1::BrowseAt& where, const std::string& object,
                          const v1::Presence& presence, const v1::BrowsedHosts& hosts) {
  std::string heading = Asked(where, object) + ": on " + HostsCell(presence, hosts) + " hosts";
  if (presence.hosts() < static_cast<uint32_t>(hosts.names_size())) {
    heading += " (not on " + EscapeForDisplay(LackingCell(presence, hosts)) + ")";
  }
  return heading + ", " + Sampled(hosts);
}

}  // namespace

void PrintFleetObjects(const v1::BrowseAt& where, const v1::ListObjectsResponse& response,
                       OutputFormat format, std::ostream& out) {
  const v1::BrowsedHosts& hosts = response.fleet();
  if (format == OutputFormat::kJson) {
    Json objects = Json::array();
    for (const v1::ObjectInfo& o : response.objects()) {
      Json item = {{"name", o.name()},
                   {"index", o.index()},
                   {"instances", o.instances()},
                   {"counters", o.counters()},
                   {"detail", query::DetailLevelName(o.detail())},
                   {"help", o.help()}};
      AddPresence(o.presence(), item);
      objects.push_back(std::move(item));
    }
    Json answer = HostsJson(hosts);
    answer["objects"] = std::move(objects);
    out << answer.dump(2) << "\n";
    return;
  }
  std::vector<std::vector<std::string>> rows = {
      {"OBJECT", "HOSTS", "INSTANCES", "COUNTERS", "DETAIL", "LACKING"}};
  for (const v1::ObjectInfo& o : response.objects()) {
    rows.push_back({o.name(), HostsCell(o.presence(), hosts),
                    o.instances() < 0 ? "-" : std::to_string(o.instances()),
                    std::to_string(o.counters()), query::DetailLevelName(o.detail()),
                    LackingCell(o.presence(), hosts)});
  }
  out << Asked(where, "") << ": " << hosts.names_size() << " hosts, " << Sampled(hosts) << "\n";
  query::PrintTable(out, rows);
}

void PrintFleetCounters(const v1::BrowseAt& where, const v1::ListCountersResponse& response,
                        OutputFormat format, std::ostream& out) {
  const v1::BrowsedHosts& hosts = response.fleet();
  if (format == OutputFormat::kJson) {
    Json counters = Json::array();
    for (const v1::CounterInfo& c : response.counters()) {
      Json item = {{"name", c.name()},
                   {"index", c.index()},
                   {"type", c.type_name()},
                   {"unit", c.unit()},
                   {"detail", query::DetailLevelName(c.detail())},
                   {"default_scale", c.default_scale()},
                   {"help", c.help()}};
      AddPresence(c.presence(), item);
      counters.push_back(std::move(item));
    }
    Json answer = HostsJson(hosts);
    answer["object"] = response.object();
    AddPresence(response.object_presence(), answer, "object_");
    answer["counters"] = std::move(counters);
    out << answer.dump(2) << "\n";
    return;
  }
  std::vector<std::vector<std::string>> rows = {
      {"COUNTER", "HOSTS", "TYPE", "UNIT", "DETAIL", "LACKING"}};
  for (const v1::CounterInfo& c : response.counters()) {
    rows.push_back({c.name(), HostsCell(c.presence(), hosts), c.type_name(),
                    c.unit().empty() ? "-" : c.unit(), query::DetailLevelName(c.detail()),
                    LackingCell(c.presence(), hosts)});
  }
  out << ObjectHeading(where, response.object(), response.object_presence(), hosts) << "\n";
  query::PrintTable(out, rows);
}

void PrintFleetInstances(const v1::BrowseAt& where, const v1::ListInstancesResponse& response,
                         OutputFormat format, std::ostream& out) {
  const v1::BrowsedHosts& hosts = response.fleet();
  if (format == OutputFormat::kJson) {
    Json instances = Json::array();
    for (const v1::InstanceInfo& i : response.instances()) {
      Json item = {{"name", i.name()}};
      AddPresence(i.presence(), item);
      instances.push_back(std::move(item));
    }
    Json answer = HostsJson(hosts);
    answer["object"] = response.object();
    AddPresence(response.object_presence(), answer, "object_");
    answer["instances"] = std::move(instances);
    out << answer.dump(2) << "\n";
    return;
  }
  std::vector<std::vector<std::string>> rows = {{"INSTANCE", "HOSTS", "LACKING"}};
  for (const v1::InstanceInfo& i : response.instances()) {
    rows.push_back({i.name(), HostsCell(i.presence(), hosts), LackingCell(i.presence(), hosts)});
  }
  out << ObjectHeading(where, response.object(), response.object_presence(), hosts) << "\n";
  query::PrintTable(out, rows);
}

}  // namespace perfhive::cli
