#include "query/fleet_browse.h"

#include <algorithm>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

#include "perfdata/case_folding.h"
#include "perfdata/counter_path.h"
#include "perfdata/name_pattern.h"
#include "perfdata/path_expander.h"
#include "query/bounded_parallel.h"
#include "query/empty_answers.h"
#include "query/read_engine.h"

namespace perfhive::query {
namespace {

// Of `hosts` (by name), those `holders` (their places, ascending) are: how many, and the first
// few of the others.
Presence PresenceAmong(const std::vector<size_t>& holders, const std::vector<std::string>& hosts) {
  Presence presence{holders.size(), {}};
  size_t next = 0;
  for (size_t h = 0; h < hosts.size() && presence.lacking.size() < FleetBrowser::kLackingNamed;
       ++h) {
    if (next < holders.size() && holders[next] == h) {
      ++next;
    } else {
      presence.lacking.push_back(hosts[h]);
    }
  }
  return presence;
}

// Which hosts have each name, taken host by host in order: each name once (case folded), in
// the order it first appears, as the first host that has it shows it.
template <typename Info>
class Tally {
 public:
  // Host `host` (its place among the hosts) has `name`, shown as `info`: the name's entry, and
  // whether this was its first appearance.
  std::pair<Info*, bool> Add(size_t host, std::string_view name, const Info& info) {
    auto [place, added] = places_.try_emplace(FoldCase(name), entries_.size());
    if (added) entries_.push_back({info, {}});
    Entry& entry = entries_[place->second];
    if (entry.holders.empty() || entry.holders.back() != host) entry.holders.push_back(host);
    return {&entry.info, added};
  }

  std::vector<Present<Info>> Finish(const std::vector<std::string>& hosts) && {
    std::vector<Present<Info>> present;
    present.reserve(entries_.size());
    for (Entry& entry : entries_) {
      present.push_back({std::move(entry.info), PresenceAmong(entry.holders, hosts)});
    }
    return present;
  }

 private:
  struct Entry {
    Info info;
    std::vector<size_t> holders;  // the hosts that have it, ascending
  };
  std::unordered_map<std::string, size_t> places_;  // folded name → its entry
  std::vector<Entry> entries_;
};

// An object found on one host, and its items as that host names them.
template <typename Item>
struct FoundItems {
  std::string object;
  std::vector<std::pair<std::string, Item>> items;
};

}  // namespace

Result<std::vector<std::string>> FleetBrowser::SelectHosts(const FleetBrowseRequest& request) {
  Result<std::vector<std::string>> all = reader_.HostNames();
  if (!all.ok()) return all.status();
  const std::string pattern = request.hosts.empty() ? "*" : request.hosts;
  const NamePattern machine(pattern);
  const bool need_labels = labels_ && request.selector.needs_labels();
  size_t matched = 0;  // before the selector
  std::vector<std::string> selected;
  for (const std::string& host : *all) {
    if (!machine.Matches(host)) continue;
    ++matched;
    if (request.selector.Matches(host, need_labels ? labels_(host) : HostLabels{})) {
      selected.push_back(host);
    }
  }
  if (matched == 0) return Status::NotFound("no host matches \\\\" + pattern + KnownHosts(*all));
  if (selected.empty()) {
    return Status::NotFound("none of the " + std::to_string(matched) + " hosts \\\\" + pattern +
                            " matches is selected by \"" + request.selector.text() +
                            "\" (`perfhive hosts` shows their labels)");
  }
  std::sort(selected.begin(), selected.end());
  return selected;
}

template <typename Part, typename Browse>
Result<std::vector<Part>> FleetBrowser::BrowseEach(const FleetBrowseRequest& request,
                                                   const ObjectNameFilter* objects,
                                                   const Browse& browse, BrowsedHosts& hosts) {
  Result<std::vector<std::string>> selected = SelectHosts(request);
  if (!selected.ok()) return selected.status();
  struct HostPart {
    Status status;
    std::optional<int64_t> sample_ns;  // none: no sample by the time asked
    Part part;
  };
  std::vector<HostPart> parts(selected->size());
  RunBounded(selected->size(), ReadEngine::kReadThreads, [&](size_t i) {
    const std::string& host = (*selected)[i];
    Result<std::vector<HostSample>> samples = reader_.BrowseSamples(host, request.at_ns, objects);
    if (!samples.ok()) {
      if (samples.status().code() != StatusCode::kNotFound) {
        parts[i].status = samples.status().Prefixed(host + ": ");
      }
      return;
    }
    Result<Part> part = browse(std::span<const HostSample>(*samples));
    if (!part.ok()) {
      parts[i].status = part.status().Prefixed(host + ": ");
      return;
    }
    parts[i].sample_ns = samples->front().time_ns;
    parts[i].part = std::move(part).value();
  });
  std::vector<Part> browsed;
  for (size_t i = 0; i < parts.size(); ++i) {
    HostPart& host = parts[i];
    if (!host.status.ok()) return host.status;
    if (!host.sample_ns) {
      ++hosts.without_sample;
      continue;
    }
    hosts.oldest_ns =
        hosts.names.empty() ? *host.sample_ns : std::min(hosts.oldest_ns, *host.sample_ns);
    hosts.newest_ns = std::max(hosts.newest_ns, *host.sample_ns);
    hosts.names.push_back((*selected)[i]);
    browsed.push_back(std::move(host.part));
  }
  if (browsed.empty()) {
    return Status::NotFound("none of the " + std::to_string(parts.size()) +
                            " hosts selected has a sample at or before that time");
  }
  return browsed;
}

Result<FleetObjects> FleetBrowser::Objects(const FleetBrowseRequest& request) {
  FleetObjects answer;
  Result<std::vector<std::vector<ObjectInfo>>> parts = BrowseEach<std::vector<ObjectInfo>>(
      request, nullptr,
      [&](std::span<const HostSample> samples) { return ListObjects(samples, request.max_detail); },
      answer.hosts);
  if (!parts.ok()) return parts.status();
  Tally<ObjectInfo> tally;
  for (size_t host = 0; host < parts->size(); ++host) {
    for (const ObjectInfo& object : (*parts)[host]) {
      auto [known, added] = tally.Add(host, object.name, object);
      if (added) continue;
      if (object.num_instances >= 0) {
        known->num_instances = std::max(known->num_instances, 0) + object.num_instances;
      }
      known->num_counters = std::max(known->num_counters, object.num_counters);
    }
  }
  answer.objects = std::move(tally).Finish(answer.hosts.names);
  return answer;
}

template <typename Item, typename Items>
Result<FleetObjectItems<Item>> FleetBrowser::ObjectItems(const FleetBrowseRequest& request,
                                                         std::string_view object,
                                                         const Items& items) {
  // Only the object's sections are restored (and its parents').
  CounterPath path;
  path.object = EscapePattern(object);
  const ObjectNameFilter filter(std::span<const CounterPath>(&path, 1));
  FleetObjectItems<Item> answer;
  Result<std::vector<std::optional<FoundItems<Item>>>> parts =
      BrowseEach<std::optional<FoundItems<Item>>>(
          request, &filter,
          [&](std::span<const HostSample> samples) -> Result<std::optional<FoundItems<Item>>> {
            Result<BrowsedObject> found = FindObject(samples, object);
            if (!found.ok()) {
              if (found.status().code() != StatusCode::kNotFound) return found.status();
              return std::optional<FoundItems<Item>>();
            }
            return std::optional<FoundItems<Item>>(
                {found->titles().Name(found->object.name_index()), items(*found)});
          },
          answer.hosts);
  if (!parts.ok()) return parts.status();
  Tally<Item> tally;
  std::vector<size_t> with_object;
  for (size_t host = 0; host < parts->size(); ++host) {
    const std::optional<FoundItems<Item>>& part = (*parts)[host];
    if (!part) continue;
    if (with_object.empty()) answer.object = part->object;
    with_object.push_back(host);
    for (const auto& [name, item] : part->items) tally.Add(host, name, item);
  }
  if (with_object.empty()) {
    // The close names are the first host's, in its whole samples (the ones read held only the
    // object, had it been there).
    const std::string& first = answer.hosts.names.front();
    Result<std::vector<HostSample>> whole = reader_.BrowseSamples(first, request.at_ns, nullptr);
    Result<BrowsedObject> found = whole.ok() ? FindObject(*whole, object) : whole.status();
    return Status::NotFound(
        "none of the " + std::to_string(answer.hosts.names.size()) +
        " hosts browsed has an object \"" + std::string(object) + "\"" +
        (found.ok() ? std::string() : "; " + first + ": " + found.status().message()));
  }
  answer.object_presence = PresenceAmong(with_object, answer.hosts.names);
  answer.items = std::move(tally).Finish(answer.hosts.names);
  return answer;
}

Result<FleetCounters> FleetBrowser::Counters(const FleetBrowseRequest& request,
                                             std::string_view object) {
  return ObjectItems<CounterInfo>(request, object, [&](const BrowsedObject& found) {
    std::vector<std::pair<std::string, CounterInfo>> counters;
    for (CounterInfo& counter : ListCounters(found.object, found.titles(), request.max_detail)) {
      std::string name = counter.name;
      counters.emplace_back(std::move(name), std::move(counter));
    }
    return counters;
  });
}

Result<FleetInstances> FleetBrowser::Instances(const FleetBrowseRequest& request,
                                               std::string_view object) {
  return ObjectItems<std::string>(request, object, [](const BrowsedObject& found) {
    std::vector<std::pair<std::string, std::string>> instances;
    for (const InstanceInfo& instance : ListInstances(found.snapshot, found.object)) {
      instances.emplace_back(instance.name, instance.name);
    }
    return instances;
  });
}

}  // namespace perfhive::query
