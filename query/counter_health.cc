#include "query/counter_health.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "perfdata/case_folding.h"
#include "perfdata/index_list.h"
#include "perfdata/pdh_status.h"
#include "perfdata/time_text.h"
#include "query/browse.h"

namespace perfhive::query {
namespace {

// An object's key is its folded name; a counter's, its object's key, this, and its folded name.
constexpr char kCounterSeparator = '\x1f';

// The keys of objects and counters something holds.
using KeySet = std::set<std::string>;

// What a host's snapshots held (all its queries together) from one time on.
struct Point {
  int64_t time_ns = 0;
  const InventoryVersion* starts = nullptr;  // a version that starts here (the change)
  std::shared_ptr<const KeySet> keys;        // objects and counters
};

// A host's inventories merged over its queries, and what the report reads of them.
struct Timeline {
  const HealthHost* host = nullptr;
  std::vector<Point> points;  // by time, up to the report's time
  // The versions of each query in force at the last point: their indexes are checked against
  // the title databases.
  std::vector<const InventoryVersion*> last_versions;
  // Indexes of those its title databases do not name (none when it has no database).
  std::set<uint32_t> unnamed_now;

  const KeySet& now() const { return *points.back().keys; }
};

// Display names by key, as the first host (by name) that has it names it.
using DisplayNames = std::map<std::string, std::string>;
// The indexes a named object or counter has on the hosts that name it: a host holding one of
// them unnamed lacks the name, not the counter.
using NamedIndexes = std::map<std::string, std::set<uint32_t>>;
// Keys made of an index some host's title database does not name ("4", "4\x1fpages/sec"): that
// host's, which the unnamed-index finding reports, never something its peers lack.
using UnnamedKeys = std::set<std::string>;

// What the report learns of names while it makes the hosts' keys.
struct Naming {
  DisplayNames names;
  NamedIndexes named_indexes;
  UnnamedKeys unnamed_keys;

  // Whether the host holds one of the indexes a named key has elsewhere without its name: the
  // unnamed-index finding reports it, not a loss or a gap beside peers.
  bool HoldsUnnamed(const std::set<uint32_t>& unnamed_now, const std::string& key) const {
    auto indexes = named_indexes.find(key);
    return indexes != named_indexes.end() &&
           std::any_of(indexes->second.begin(), indexes->second.end(),
                       [&](uint32_t index) { return unnamed_now.contains(index); });
  }
};

// Whether the host's title databases name `index`; true when it has none (nothing to check).
bool Named(const HealthHost& host, uint32_t index) {
  if (host.english == nullptr && host.localized == nullptr) return true;
  return (host.english && host.english->Name(index)) ||
         (host.localized && host.localized->Name(index));
}

std::string CounterKey(const std::string& object_key, std::string_view counter_name) {
  return object_key + kCounterSeparator + FoldCase(counter_name);
}

bool IsCounterKey(const std::string& key) {
  return key.find(kCounterSeparator) != std::string::npos;
}

std::string ObjectKeyOf(const std::string& key) {
  return key.substr(0, key.find(kCounterSeparator));
}

// The keys of an inventory named with some title databases, made once for every host that has
// the same inventory and databases: a fleet of a few kinds of machines names a few.
class KeyCache {
 public:
  explicit KeyCache(Naming& naming) : naming_(naming) {}

  std::shared_ptr<const KeySet> KeysOf(const HealthHost& host, const SnapshotInventory& inventory);

 private:
  Naming& naming_;
  std::map<std::tuple<const TitleDatabase*, const TitleDatabase*, std::vector<uint8_t>>,
           std::shared_ptr<const KeySet>>
      made_;
};

std::shared_ptr<const KeySet> KeyCache::KeysOf(const HealthHost& host,
                                               const SnapshotInventory& inventory) {
  auto [entry, fresh] = made_.try_emplace(
      {host.english.get(), host.localized.get(), EncodeInventory(inventory)}, nullptr);
  if (!fresh) return entry->second;
  const Titles titles{host.english.get(), host.localized.get()};
  auto keys = std::make_shared<KeySet>();
  for (const ObjectInventory& object : inventory.objects) {
    const std::string object_name = titles.Name(object.index);
    const std::string object_key = FoldCase(object_name);
    naming_.names.emplace(object_key, object_name);
    const bool object_named = Named(host, object.index);
    if (object_named) {
      naming_.named_indexes[object_key].insert(object.index);
    } else {
      naming_.unnamed_keys.insert(object_key);
    }
    keys->insert(object_key);
    for (uint32_t counter : object.counters) {
      const std::string counter_name = titles.Name(counter);
      std::string key = CounterKey(object_key, counter_name);
      naming_.names.emplace(key, counter_name);
      if (object_named && Named(host, counter)) {
        naming_.named_indexes[key].insert(counter);
      } else {
        naming_.unnamed_keys.insert(key);
      }
      keys->insert(std::move(key));
    }
  }
  entry->second = std::move(keys);
  return entry->second;
}

Timeline BuildTimeline(const HealthHost& host, int64_t at_ns, KeyCache& key_cache) {
  std::map<const InventoryVersion*, std::shared_ptr<const KeySet>> version_keys;
  std::set<int64_t> times;
  for (const InventoryVersion& version : host.inventories.versions) {
    if (version.since_ns > at_ns) continue;
    times.insert(version.since_ns);
    version_keys[&version] = key_cache.KeysOf(host, version.inventory);
  }
  Timeline timeline;
  timeline.host = &host;
  const std::vector<InventoryVersion>& versions = host.inventories.versions;
  for (int64_t time_ns : times) {
    Point point{time_ns, nullptr, {}};
    // Versions are by query, then time: each query's last at or before the point is in force.
    std::vector<const InventoryVersion*> in_force;
    for (size_t i = 0; i < versions.size(); ++i) {
      const InventoryVersion& version = versions[i];
      if (version.since_ns > time_ns) continue;
      if (i + 1 == versions.size() || versions[i + 1].query != version.query ||
          versions[i + 1].since_ns > time_ns) {
        in_force.push_back(&version);
      }
      if (version.since_ns == time_ns && point.starts == nullptr) point.starts = &version;
    }
    if (in_force.size() == 1) {
      point.keys = version_keys[in_force.front()];
    } else {
      auto merged = std::make_shared<KeySet>();
      for (const InventoryVersion* version : in_force) {
        merged->insert(version_keys[version]->begin(), version_keys[version]->end());
      }
      point.keys = std::move(merged);
    }
    timeline.points.push_back(std::move(point));
    timeline.last_versions = std::move(in_force);
  }
  for (const InventoryVersion* version : timeline.last_versions) {
    for (const ObjectInventory& object : version->inventory.objects) {
      if (!Named(host, object.index)) timeline.unnamed_now.insert(object.index);
      for (uint32_t counter : object.counters) {
        if (!Named(host, counter)) timeline.unnamed_now.insert(counter);
      }
    }
  }
  return timeline;
}

// The version of the same query before `version` in its host's list; null for the first.
const InventoryVersion* PreviousOfQuery(const HostInventories& inventories,
                                        const InventoryVersion* version) {
  const InventoryVersion* first = inventories.versions.data();
  if (version == first) return nullptr;
  const InventoryVersion* previous = version - 1;
  return previous->query == version->query ? previous : nullptr;
}

// The first word of the host's OS ("Windows", "Linux"), which its peers share; empty when its
// agent did not say.
std::string OsFamily(const HealthHost& host) { return host.os.substr(0, host.os.find(' ')); }

bool IsWindows(const HealthHost& host) { return OsFamily(host) != "Linux"; }

// Since when the host's title databases in force at `at_ns` have been: the latest version that
// came by then, or the host's first inventory when none came since the first.
int64_t TitlesInForceSince(const Timeline& timeline, int64_t at_ns) {
  int64_t since_ns = timeline.points.front().time_ns;
  for (int64_t title_ns : timeline.host->title_versions_ns) {
    if (title_ns <= at_ns) since_ns = std::max(since_ns, title_ns);
  }
  return since_ns;
}

// What changed between the last snapshot with something and the first without, in words, and
// what to do about it.
std::pair<std::string, std::string> Explain(const HealthHost& host, const InventoryVersion* starts,
                                            std::optional<int64_t> last_with_ns, int64_t since_ns) {
  std::vector<std::string> causes;
  std::string action;
  for (int64_t title_ns : host.title_versions_ns) {
    if (title_ns <= since_ns && (!last_with_ns || title_ns > *last_with_ns)) {
      causes.push_back("its title database changed at " + FormatRfc3339(title_ns, 0));
      action =
          "if names went missing with it, run `lodctr /R` as administrator to rebuild them, then "
          "`winmgmt /resyncperf`";
      break;
    }
  }
  const InventoryVersion* before =
      starts != nullptr ? PreviousOfQuery(host.inventories, starts) : nullptr;
  if (before != nullptr) {
    if (before->agent_version != starts->agent_version) {
      causes.push_back("its agent changed from " + before->agent_version + " to " +
                       starts->agent_version);
      if (action.empty()) {
        action = "compare with the previous agent version; if the new one lost it, report it";
      }
    }
    if (before->os_version != starts->os_version) {
      causes.push_back("its OS changed from " + before->os_version + " to " + starts->os_version);
      if (action.empty()) {
        action =
            "an update replaced or removed its provider: check that the provider's service is "
            "installed and that `lodctr /Q` lists it as enabled";
      }
    }
    if (before->plan_revision != starts->plan_revision) {
      causes.push_back("its collection plan changed from '" + before->plan_revision + "' to '" +
                       starts->plan_revision + "'");
      if (action.empty()) {
        action = "the new plan may no longer ask for it: see the policies file";
      }
    }
  }
  if (causes.empty()) {
    causes.push_back(before != nullptr || last_with_ns ? "its provider stopped returning it"
                                                       : "its provider never returned it");
  }
  if (action.empty()) {
    action = IsWindows(host)
                 ? "check `Disable Performance Counters` under HKLM\\SYSTEM\\CurrentControlSet\\"
                   "Services\\<service>\\Performance (0 or absent enables it) and the Application "
                   "event log for Perflib errors; `lodctr /Q` lists the providers and whether each "
                   "is enabled"
                 : "check what the host's /proc provides: `perfhive-agent snapshot --source "
                   "procfs` shows what its agent reads";
  }
  std::string cause;
  for (const std::string& part : causes) cause += (cause.empty() ? "" : "; ") + part;
  return {cause, action};
}

// Where `key` went missing for good on a host: the finding for it, found backwards from the
// host's last point (which lacks it).
HostFinding SinceMissing(const Timeline& timeline, const std::string& key,
                         const LastSampleBefore& last_sample_before) {
  const std::vector<Point>& points = timeline.points;
  size_t after = points.size();
  while (after > 0 && !points[after - 1].keys->contains(key)) --after;
  HostFinding finding{
      timeline.host->inventories.host, points[after == 0 ? 0 : after].time_ns, {}, "", ""};
  if (after > 0) {
    const Point& change = points[after];
    if (change.starts != nullptr && last_sample_before) {
      finding.last_with_ns = last_sample_before(finding.host, change.starts->query, change.time_ns);
    }
    if (!finding.last_with_ns) finding.last_with_ns = points[after - 1].time_ns;
  }
  std::tie(finding.cause, finding.action) =
      Explain(*timeline.host, points[after == 0 ? 0 : after].starts, finding.last_with_ns,
              finding.since_ns);
  if (after == 0) {
    finding.cause = "not in any of its snapshots since its inventory was first recorded (" +
                    FormatRfc3339(finding.since_ns, 0) + "): " + finding.cause;
  }
  return finding;
}

// The first point at or before `time_ns`, else the first: what the host held then.
size_t PointAt(const std::vector<Point>& points, int64_t time_ns) {
  size_t at = 0;
  while (at + 1 < points.size() && points[at + 1].time_ns <= time_ns) ++at;
  return at;
}

std::string PeerKey(const HealthHost& host, const std::vector<std::string>& peers_by) {
  std::string key = OsFamily(host);
  if (key.empty()) key = "unknown OS";
  for (const std::string& label : peers_by) {
    auto value = host.labels.find(label);
    if (value != host.labels.end()) key += " " + label + "=" + value->second;
  }
  return key;
}

// Indexes as ranges: {6, 8, 9, 10} -> "6, 8-10".
std::string IndexRanges(const std::set<uint32_t>& indexes) {
  std::string text;
  for (auto index = indexes.begin(); index != indexes.end();) {
    uint32_t first = *index, last = *index;
    while (++index != indexes.end() && *index == last + 1) last = *index;
    text += (text.empty() ? "" : ", ") + std::to_string(first);
    if (last != first) text += "-" + std::to_string(last);
  }
  return text;
}

// Up to `most` names and how many more: "Process, Processor and 3 more".
std::string ListSome(const std::set<std::string>& names, size_t most) {
  std::string text;
  size_t shown = 0;
  for (const std::string& name : names) {
    if (shown == most) break;
    text += (shown++ == 0 ? "" : ", ") + name;
  }
  if (names.size() > shown) text += " and " + std::to_string(names.size() - shown) + " more";
  return text;
}

// How a cause begins when the host's agent asks for the object by index and gets nothing back.
constexpr std::string_view kAskedByIndexEnd = "\") and its snapshots do not return it: ";
std::string AskedByIndex(const std::string& query) {
  return "its agent asks for it by index (query \"" + query + std::string(kAskedByIndexEnd);
}

void AddHost(
    std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding>& findings,
    HealthFindingKind kind, const std::string& object, const std::string& counter,
    HostFinding host) {
  HealthFinding& finding = findings[{kind, object, counter}];
  finding.kind = kind;
  finding.object = object;
  finding.counter = counter;
  finding.hosts.push_back(std::move(host));
}

// The findings of one peer group: what most of its hosts have and some lack.
void FindMissing(const std::vector<const Timeline*>& group, const std::string& peers,
                 const Naming& naming, const LastSampleBefore& last_sample_before,
                 std::vector<HealthFinding>& out,
                 std::set<std::pair<std::string, std::string>>& reported) {
  // How many hosts have each object; of those with its object, how many have each counter.
  // Hosts of one kind of machine share their key set: each set is counted once, times its hosts.
  std::map<const KeySet*, size_t> sets;
  for (const Timeline* timeline : group) ++sets[&timeline->now()];
  std::map<std::string, size_t> having;
  for (const auto& [keys, hosts] : sets) {
    for (const std::string& key : *keys) having[key] += hosts;
  }
  for (const auto& [key, count] : having) {
    const bool counter = IsCounterKey(key);
    const size_t base = counter ? having.at(ObjectKeyOf(key)) : group.size();
    if (count < 2 || count * 2 <= base || count == base) continue;
    if (naming.unnamed_keys.contains(key)) continue;
    HealthFinding finding;
    finding.kind = counter ? HealthFindingKind::kCounterMissing : HealthFindingKind::kObjectMissing;
    finding.object = naming.names.at(ObjectKeyOf(key));
    finding.counter = counter ? naming.names.at(key) : "";
    finding.peers = peers;
    finding.peers_with = count;
    finding.peer_hosts = base;
    for (const Timeline* timeline : group) {
      if (timeline->now().contains(key)) continue;
      if (counter && !timeline->now().contains(ObjectKeyOf(key))) continue;
      if (naming.HoldsUnnamed(timeline->unnamed_now, key)) continue;
      finding.hosts.push_back(SinceMissing(*timeline, key, last_sample_before));
      reported.insert({timeline->host->inventories.host, key});
    }
    if (!finding.hosts.empty()) out.push_back(std::move(finding));
  }
}

// How two title databases' names differ: how many of `other`'s indexes `one` does not name, and
// how many of its own `other` does not.
std::pair<size_t, size_t> NamesDiffer(const TitleDatabase& one, const TitleDatabase& other) {
  size_t lacks = 0, extra = 0;
  const uint32_t last = std::max(one.last_name_index(), other.last_name_index());
  for (uint32_t index = 0; index <= last; ++index) {
    const bool in_one = one.Name(index).has_value(), in_other = other.Name(index).has_value();
    lacks += in_other && !in_one;
    extra += in_one && !in_other;
  }
  return {lacks, extra};
}

// Hosts of one OS build (family and version) whose English title database is not the one most of
// them have (a host's database is shared with hosts that have the same, by digest).
void FindTitlesThatDiffer(
    const std::vector<Timeline>& timelines, int64_t at_ns,
    std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding>& own) {
  std::map<std::string, std::vector<const Timeline*>> builds;
  for (const Timeline& timeline : timelines) {
    const HealthHost& host = *timeline.host;
    if (host.english == nullptr || host.os_version.empty()) continue;
    builds[OsFamily(host) + " " + host.os_version].push_back(&timeline);
  }
  for (const auto& [build, hosts] : builds) {
    std::map<const TitleDatabase*, size_t> holding;
    for (const Timeline* timeline : hosts) ++holding[timeline->host->english.get()];
    if (holding.size() < 2) continue;
    const auto common =
        std::max_element(holding.begin(), holding.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    if (common->second * 2 <= hosts.size()) continue;  // no database most of them have
    for (const Timeline* timeline : hosts) {
      const HealthHost& host = *timeline->host;
      if (host.english.get() == common->first) continue;
      const auto [lacks, extra] = NamesDiffer(*host.english, *common->first);
      AddHost(own, HealthFindingKind::kTitlesDiffer, "", build,
              HostFinding{host.inventories.host,
                          TitlesInForceSince(*timeline, at_ns),
                          {},
                          "its title database is not the one " + std::to_string(common->second) +
                              " of the " + std::to_string(hosts.size()) + " hosts of " + build +
                              " have: it lacks " + std::to_string(lacks) +
                              " of their names and has " + std::to_string(extra) + " they lack",
                          lacks > 0 ? "run `lodctr /R` as administrator to rebuild the names it "
                                      "lacks, then `winmgmt /resyncperf`"
                                    : "names only it has come from providers installed on it "
                                      "alone; nothing to repair"});
    }
  }
}

// What to do about a disabled provider, the same wherever the report meets it.
std::string EnableProviderAction(const std::string& service) {
  return "look in the Application event log for Perflib's error about " + service +
         " (Perflib disables a provider whose DLL fails) and fix or update it; then enable it "
         "again as administrator with `lodctr /E:" +
         service + "` (or set the value to 0) and restart the perfhive agent";
}

// The service whose disabled provider lists the object of `object_key` on `host` (by the host's
// own title databases), if one does.
const DisabledProviderSince* DisabledProviderOf(const HealthHost& host,
                                                const std::string& object_key) {
  const Titles titles{host.english.get(), host.localized.get()};
  for (const DisabledProviderSince& disabled : host.disabled_providers) {
    for (uint32_t index : disabled.provider.object_indexes) {
      if (FoldCase(titles.Name(index)) == object_key) return &disabled;
    }
  }
  return nullptr;
}

// What the host's last title database change did to names its snapshots use: names it changed
// (queries and rules by the old name stop matching), and names it gave to more counters of one
// object than before (a path with it then selects them all). Names shared from the start are the
// provider's own (Exchange 2007 gives 20 counters of MSExchangeIS Mailbox one name): not trouble.
void FindNameTrouble(
    const Timeline& timeline, int64_t at_ns,
    std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding>& own) {
  const HealthHost& host = *timeline.host;
  if (host.english == nullptr || host.english_before == nullptr) return;
  const Titles titles{host.english.get(), host.localized.get()};
  const int64_t titles_since = TitlesInForceSince(timeline, at_ns);
  std::set<uint32_t> renamed;
  std::set<std::string> examples;                         // "1234 \"Old\" is \"New\""
  std::set<std::pair<uint32_t, std::string>> duplicated;  // (object, folded name), once each
  for (const InventoryVersion* version : timeline.last_versions) {
    for (const ObjectInventory& object : version->inventory.objects) {
      // Its counters by folded name, now and before.
      std::map<std::string, std::set<uint32_t>> by_name, by_name_before;
      std::vector<uint32_t> used = object.counters;
      used.push_back(object.index);
      for (uint32_t index : used) {
        const std::optional<std::string_view> now = host.english->Name(index);
        const std::optional<std::string_view> before = host.english_before->Name(index);
        if (index != object.index && now) by_name[FoldCase(*now)].insert(index);
        if (index != object.index && before) by_name_before[FoldCase(*before)].insert(index);
        if (!now) continue;
        if (before && FoldCase(*before) != FoldCase(*now) && renamed.insert(index).second) {
          examples.insert(std::to_string(index) + " \"" + std::string(*before) + "\" is \"" +
                          std::string(*now) + "\"");
        }
      }
      for (const auto& [name, indexes] : by_name) {
        if (indexes.size() < 2 || !duplicated.insert({object.index, name}).second) continue;
        if (auto before = by_name_before.find(name);
            before != by_name_before.end() && before->second.size() >= indexes.size()) {
          continue;
        }
        const std::string object_name = titles.Name(object.index);
        AddHost(
            own, HealthFindingKind::kNameDuplicated, object_name,
            std::string(*host.english->Name(*indexes.begin())),
            HostFinding{host.inventories.host,
                        std::max(titles_since, version->since_ns),
                        {},
                        "its title database changed at " + FormatRfc3339(titles_since, 0) +
                            " and gives " + std::to_string(indexes.size()) + " counters of " +
                            object_name + " this name (indexes " + IndexRanges(indexes) +
                            "): a counter path with it selects them all",
                        "if the provider was installed twice, unload the stale one with `unlodctr` "
                        "and run `lodctr /R`; otherwise tell the series apart by their indexes"});
      }
    }
  }
  if (renamed.empty()) return;
  AddHost(own, HealthFindingKind::kNamesChanged, "", IndexRanges(renamed),
          HostFinding{host.inventories.host,
                      titles_since,
                      {},
                      "its title database changed at " + FormatRfc3339(titles_since, 0) +
                          " and renamed " + std::to_string(renamed.size()) +
                          " indexes its snapshots use: " + ListSome(examples, 5),
                      "counter paths, rules and dashboards that use the old names no longer "
                      "match: update them; if the new names are wrong, run `lodctr /R` as "
                      "administrator"});
}

// What a host's agent lost, when a count grew in the range: one finding with every count and what
// to do about each.
void FindLosses(
    const HealthHost& host, const HealthRequest& request,
    std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding>& own) {
  if (!host.losses) return;
  const CollectionLosses& losses = *host.losses;
  if (losses.grew_ns < request.from_ns || losses.grew_ns > request.at_ns) return;
  std::vector<std::string> counts, actions;
  auto add = [&](uint64_t count, const char* what, const char* action) {
    if (count == 0) return;
    counts.push_back(std::to_string(count) + " " + what);
    if (std::find(actions.begin(), actions.end(), action) == actions.end()) {
      actions.push_back(action);
    }
  };
  add(losses.skipped_ticks, "ticks skipped (a read still ran when the next was due)",
      "lengthen the interval, or find the slow provider (an object asked for alone shows it)");
  add(losses.failed_reads, "reads failed", "the host's collection-error says why");
  add(losses.dropped, "snapshots dropped by the spool's limit while the server was unreachable",
      "raise the spool's limit (spool_max_bytes in the agent's settings or its plan)");
  add(losses.unspoolable, "snapshots larger than the whole spool",
      "raise the spool's limit (spool_max_bytes in the agent's settings or its plan)");
  add(losses.refused, "snapshots refused by the server", "the server's log says why");
  add(losses.unreadable, "spooled snapshots unreadable", "check the disk of the agent's spool");
  if (counts.empty()) return;
  std::string cause =
      "since its agent started at " + FormatRfc3339(losses.agent_started_ns, 0) + ": ";
  for (size_t i = 0; i < counts.size(); ++i) cause += (i == 0 ? "" : ", ") + counts[i];
  std::string action;
  for (const std::string& one : actions) action += (action.empty() ? "" : "; ") + one;
  AddHost(
      own, HealthFindingKind::kCollectionLosses, "", "",
      HostFinding{host.inventories.host, losses.grew_ns, {}, std::move(cause), std::move(action)});
}

// A host's disabled providers, each one finding; the objects each lists, named.
void FindDisabledProviders(
    const Timeline& timeline,
    std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding>& own) {
  const HealthHost& host = *timeline.host;
  const Titles titles{host.english.get(), host.localized.get()};
  for (const DisabledProviderSince& disabled : host.disabled_providers) {
    const DisabledProvider& provider = disabled.provider;
    std::set<std::string> objects;
    for (uint32_t index : provider.object_indexes) objects.insert(titles.Name(index));
    std::string cause = std::string(kDisablePerformanceCounters) + " is " +
                        std::to_string(provider.disable_value) + " under " +
                        ProviderKeyPath(provider.service) + ", so Perflib does not load " +
                        (provider.library.empty() ? "its provider" : provider.library);
    if (!objects.empty()) cause += ": " + ListSome(objects, 8) + " are not collected";
    AddHost(own, HealthFindingKind::kProviderDisabled, "", provider.service,
            HostFinding{host.inventories.host,
                        disabled.since_ns,
                        {},
                        std::move(cause),
                        EnableProviderAction(provider.service)});
  }
}

// What a run of invalid values says, by the status of its first value, and what to do.
std::pair<std::string, std::string> ExplainInvalid(PdhStatus status) {
  switch (status) {
    case PdhStatus::kNegativeValue:
      return {"its raw count goes backwards from sample to sample",
              "the provider resets its count at every collection, or reports something that is "
              "not a count: restart the service that provides it, then update the provider"};
    case PdhStatus::kNegativeDenominator:
      return {"its time base or base counter does not advance",
              "the provider no longer updates its timestamps or its base counter: restart the "
              "service that provides it, then update the provider"};
    case PdhStatus::kNegativeTimebase:
      return {"its provider gives a frequency of zero or less",
              "update the provider; until then, the counter gives no value"};
    default:
      return {"its base counter is missing or its type is not one PDH computes",
              "the provider's counter definitions changed: run `lodctr /R`, then update the "
              "provider"};
  }
}

// A host's counters without a valid value: one finding per object, naming its counters (a
// provider that breaks breaks most of its object's counters: one line, not one per counter);
// hosts whose object has the same counters invalid share it.
void FindInvalidCounterRuns(
    const HealthHost& host, const HealthRequest& request,
    const LastSampleBefore& last_sample_before,
    std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding>& own) {
  const Titles titles{host.english.get(), host.localized.get()};
  struct ObjectRuns {
    const InvalidCounterRun* first = nullptr;  // the earliest run: since when
    std::map<PdhStatus, std::set<std::string>> by_status;
    std::set<std::string> counters;
  };
  std::map<uint32_t, ObjectRuns> objects;
  std::set<std::pair<uint32_t, uint32_t>> found;  // one per counter, whichever query showed it
  for (const InvalidCounterRun& run : host.invalid_counters) {
    if (run.since_ns > request.at_ns) continue;
    if (!found.insert({run.counter.object_index, run.counter.counter_index}).second) continue;
    ObjectRuns& object = objects[run.counter.object_index];
    if (object.first == nullptr || run.since_ns < object.first->since_ns) object.first = &run;
    const std::string counter = titles.Name(run.counter.counter_index);
    object.by_status[run.counter.status].insert(counter);
    object.counters.insert(counter);
  }
  for (const auto& [object_index, object] : objects) {
    std::string cause = "no instance has had a valid value since";
    std::set<std::string> actions;
    for (const auto& [status, counters] : object.by_status) {
      auto [reason, action] = ExplainInvalid(status);
      if (actions.empty()) {
        cause += object.by_status.size() == 1 ? " (" : ": ";
      } else {
        cause += "; ";
      }
      if (object.by_status.size() > 1) cause += ListSome(counters, 8) + " (";
      cause += DescribePdhStatus(status) + " at the first sample): " + reason;
      actions.insert(std::move(action));
    }
    std::string action;
    for (const std::string& one : actions) action += (action.empty() ? "" : "; ") + one;
    const size_t count = object.counters.size();
    AddHost(own, HealthFindingKind::kCounterInvalid, titles.Name(object_index),
            count == 1 ? *object.counters.begin()
                       : std::to_string(count) + " counters: " + ListSome(object.counters, 8),
            HostFinding{host.inventories.host, object.first->since_ns,
                        last_sample_before(host.inventories.host, object.first->query,
                                           object.first->since_ns),
                        std::move(cause), std::move(action)});
  }
}

// "40 s", "3 min": how long something was away.
std::string AbsenceText(int64_t nanos) {
  constexpr int64_t kSecondNs = 1'000'000'000;
  if (nanos < 60 * kSecondNs) return std::to_string(nanos / kSecondNs) + " s";
  return std::to_string((nanos + 30 * kSecondNs) / (60 * kSecondNs)) + " min";
}

// A host's instances that went and came back in the range while their object stayed: one finding
// per object and instance, with each gap; hosts share it.
void FindInstanceGaps(
    const HealthHost& host, const HealthRequest& request,
    std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding>& own) {
  const Titles titles{host.english.get(), host.localized.get()};
  std::map<std::pair<uint32_t, std::string>, std::vector<std::pair<int64_t, int64_t>>> instances;
  for (const InstanceGap& gap : host.instance_gaps) {
    if (gap.gone_ns < request.from_ns || gap.back_ns > request.at_ns) continue;
    instances[{gap.object_index, gap.instance}].push_back({gap.gone_ns, gap.back_ns});
  }
  for (auto& [instance, gaps] : instances) {
    std::sort(gaps.begin(), gaps.end());
    int64_t longest = 0;
    for (const auto& [gone, back] : gaps) longest = std::max(longest, back - gone);
    std::string cause =
        "went " + std::to_string(gaps.size()) + (gaps.size() == 1 ? " time" : " times") +
        " and came back while its object stayed (first at " + FormatRfc3339(gaps.front().first, 0) +
        ", away " + (gaps.size() == 1 ? "" : "at most ") + AbsenceText(longest) +
        "): its values have a hole there, and counts that began again read as a reset";
    AddHost(own, HealthFindingKind::kInstanceCameAndWent, titles.Name(instance.first),
            instance.second,
            HostFinding{host.inventories.host, gaps.front().first, std::nullopt, std::move(cause),
                        "a service restarted or a device dropped out then: see the host's System "
                        "event log around those times",
                        std::move(gaps)});
  }
}

// "2.34 s", "120 ms": how long a read took, to the precision that matters for it.
std::string SecondsText(int64_t nanos) {
  char text[32];
  if (nanos >= 1'000'000'000) {
    std::snprintf(text, sizeof text, "%.2f s", static_cast<double>(nanos) / 1e9);
  } else {
    std::snprintf(text, sizeof text, "%lld ms", static_cast<long long>(nanos / 1'000'000));
  }
  return text;
}

// A host's objects that took long alone, in the agent's last sweep if it falls in the range: one
// finding per object, hosts sharing it; and its slowest objects whatever their time.
void FindSlowObjects(
    const HealthHost& host, const HealthRequest& request,
    std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding>& own,
    std::vector<HostSlowestObjects>& slowest) {
  if (!host.object_timings) return;
  const ObjectTimings& timings = *host.object_timings;
  const Titles titles{host.english.get(), host.localized.get()};
  std::vector<const ObjectTiming*> by_time;
  for (const ObjectTiming& object : timings.objects) {
    if (object.error.empty()) by_time.push_back(&object);
  }
  std::sort(by_time.begin(), by_time.end(), [](const ObjectTiming* a, const ObjectTiming* b) {
    return std::tie(b->nanos, a->object_index) < std::tie(a->nanos, b->object_index);
  });
  HostSlowestObjects kept{host.inventories.host, {}};
  for (size_t i = 0; i < by_time.size() && i < kSlowestObjectsKept; ++i) {
    kept.objects.push_back({titles.Name(by_time[i]->object_index), by_time[i]->nanos});
  }
  if (!kept.objects.empty()) slowest.push_back(std::move(kept));
  if (timings.measured_ns < request.from_ns || timings.measured_ns > request.at_ns) return;
  const std::chrono::nanoseconds interval(timings.interval_ns);
  const std::chrono::nanoseconds threshold = SlowObjectThreshold(interval);
  for (const ObjectTiming* object : by_time) {
    if (std::chrono::nanoseconds(object->nanos) < threshold) break;
    std::string cause = "asked for alone, it took " + SecondsText(object->nanos);
    if (interval.count() > 0) {
      cause += " (the agent samples every " + SecondsText(interval.count()) + ")";
    }
    cause += ": every read that includes it waits for its provider as long";
    AddHost(own, HealthFindingKind::kSlowObject, titles.Name(object->object_index), "",
            HostFinding{host.inventories.host,
                        timings.measured_ns,
                        {},
                        std::move(cause),
                        "find the service whose provider gives it (`lodctr /Q` lists them) and "
                        "update or restart it; or leave the object out of the host's queries (an "
                        "index list in its plan) and lengthen the interval"});
  }
}

}  // namespace

Result<std::vector<std::string>> ParsePeersBy(std::string_view text) {
  std::vector<std::string> keys;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string key(text.substr(0, comma));
    if (!IsLabelKey(key)) {
      return Status::InvalidArgument("peers by \"" + key +
                                     "\": not a label key (a letter or '_', then letters, "
                                     "digits, '_', '.' or '-'): use label keys with commas, "
                                     "e.g. role,env");
    }
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return keys;
}

const char* HealthFindingKindName(HealthFindingKind kind) {
  switch (kind) {
    case HealthFindingKind::kObjectMissing:
      return "object-missing";
    case HealthFindingKind::kCounterMissing:
      return "counter-missing";
    case HealthFindingKind::kObjectLost:
      return "object-lost";
    case HealthFindingKind::kCounterLost:
      return "counter-lost";
    case HealthFindingKind::kObjectCameAndWent:
      return "object-came-and-went";
    case HealthFindingKind::kUnnamedIndex:
      return "unnamed-index";
    case HealthFindingKind::kTitlesDiffer:
      return "titles-differ";
    case HealthFindingKind::kCollectionError:
      return "collection-error";
    case HealthFindingKind::kProviderDisabled:
      return "provider-disabled";
    case HealthFindingKind::kObjectNotReturned:
      return "object-not-returned";
    case HealthFindingKind::kNamesChanged:
      return "names-changed";
    case HealthFindingKind::kNameDuplicated:
      return "name-duplicated";
    case HealthFindingKind::kCollectionLosses:
      return "collection-losses";
    case HealthFindingKind::kCounterInvalid:
      return "counter-invalid";
    case HealthFindingKind::kSlowObject:
      return "slow-object";
    case HealthFindingKind::kInstanceCameAndWent:
      return "instance-came-and-went";
  }
  return "unknown";
}

HealthReport ReportCounterHealth(const HealthRequest& request, std::span<const HealthHost> hosts,
                                 const LastSampleBefore& last_sample_before) {
  HealthReport report;
  report.at_ns = request.at_ns;
  Naming naming;
  KeyCache key_cache(naming);
  std::vector<const HealthHost*> by_name;
  for (const HealthHost& host : hosts) by_name.push_back(&host);
  std::sort(by_name.begin(), by_name.end(), [](const HealthHost* a, const HealthHost* b) {
    return a->inventories.host < b->inventories.host;
  });
  std::vector<Timeline> timelines;
  for (const HealthHost* host : by_name) {
    Timeline timeline = BuildTimeline(*host, request.at_ns, key_cache);
    if (timeline.points.empty()) continue;
    report.hosts.push_back(host->inventories.host);
    timelines.push_back(std::move(timeline));
  }

  // Missing beside peers.
  std::map<std::string, std::vector<const Timeline*>> groups;
  for (const Timeline& timeline : timelines) {
    groups[PeerKey(*timeline.host, request.peers_by)].push_back(&timeline);
  }
  std::set<std::pair<std::string, std::string>> reported;  // (host, key) already found missing
  for (const auto& [peers, group] : groups) {
    if (group.size() >= 2) {
      FindMissing(group, peers, naming, last_sample_before, report.findings, reported);
    }
  }

  // Each host against itself over the range: lost, came and went; unnamed indexes; errors.
  std::map<std::tuple<HealthFindingKind, std::string, std::string>, HealthFinding> own;
  for (const Timeline& timeline : timelines) {
    const HealthHost& host = *timeline.host;
    const std::string& name = host.inventories.host;
    const std::vector<Point>& points = timeline.points;
    const size_t first = PointAt(points, request.from_ns);
    // What it held at some point of the range and not now, or now and not at some point (none
    // when nothing changed in it).
    std::set<std::string> changed;
    for (size_t p = first; p + 1 < points.size(); ++p) {
      if (points[p].keys == points.back().keys) continue;
      std::set_symmetric_difference(points[p].keys->begin(), points[p].keys->end(),
                                    timeline.now().begin(), timeline.now().end(),
                                    std::inserter(changed, changed.end()));
    }
    for (const std::string& key : changed) {
      const bool counter = IsCounterKey(key);
      if (timeline.now().contains(key)) {
        if (counter) continue;
        // Came and went: absent at a point of the range after one that had it.
        HostFinding finding{name, 0, {}, "", ""};
        for (size_t p = first + 1; p < points.size(); ++p) {
          if (points[p].keys->contains(key) || !points[p - 1].keys->contains(key)) continue;
          size_t back = p + 1;
          while (!points[back].keys->contains(key)) ++back;
          finding.gaps.push_back({points[p].time_ns, points[back].time_ns});
        }
        if (finding.gaps.empty()) continue;
        finding.since_ns = finding.gaps.front().first;
        std::tie(finding.cause, finding.action) = Explain(
            host, points[PointAt(points, finding.since_ns)].starts, std::nullopt, finding.since_ns);
        finding.cause = "went " + std::to_string(finding.gaps.size()) +
                        (finding.gaps.size() == 1 ? " time" : " times") +
                        " and came back; first: " + finding.cause;
        AddHost(own, HealthFindingKind::kObjectCameAndWent, naming.names.at(key), "",
                std::move(finding));
        continue;
      }
      if (reported.contains({name, key})) continue;
      if (counter && !timeline.now().contains(ObjectKeyOf(key))) continue;  // its object is lost
      AddHost(own, counter ? HealthFindingKind::kCounterLost : HealthFindingKind::kObjectLost,
              naming.names.at(ObjectKeyOf(key)), counter ? naming.names.at(key) : "",
              SinceMissing(timeline, key, last_sample_before));
    }

    // Objects its agent asks for by index (a plan's or --query's index list) that none of its
    // snapshots return: where a finding above reports it (lost, missing beside peers), its cause
    // says so; else it is a finding of its own (a host that never had it, peers that lack it
    // too).
    const Titles titles{host.english.get(), host.localized.get()};
    for (const InventoryVersion* version : timeline.last_versions) {
      // "Global" and "Costly" ask for no object by index.
      for (uint32_t index : ParseIndexList(version->query).value_or(std::vector<uint32_t>{})) {
        if (version->inventory.Find(index) != nullptr) continue;
        const std::string object = titles.Name(index);
        const std::string key = FoldCase(object);
        if (timeline.now().contains(key)) continue;
        const std::string asked = AskedByIndex(version->query);
        // This host's part of `finding`, when it is about the object `key`.
        auto found_above = [&](HealthFinding& finding) -> HostFinding* {
          if (FoldCase(finding.object) != key || !finding.counter.empty()) return nullptr;
          for (HostFinding& found : finding.hosts) {
            if (found.host == name) return &found;
          }
          return nullptr;
        };
        HostFinding* above = nullptr;
        if (auto lost = own.find({HealthFindingKind::kObjectLost, object, ""}); lost != own.end()) {
          above = found_above(lost->second);
        }
        for (HealthFinding& finding : report.findings) {
          if (above != nullptr) break;
          if (finding.kind == HealthFindingKind::kObjectMissing) above = found_above(finding);
        }
        if (above != nullptr) {
          if (above->cause.rfind(asked, 0) != 0) above->cause = asked + above->cause;
          continue;
        }
        if (reported.contains({name, key})) continue;
        HostFinding finding = SinceMissing(timeline, key, last_sample_before);
        finding.cause = asked + finding.cause;
        AddHost(own, HealthFindingKind::kObjectNotReturned, object, "", std::move(finding));
      }
    }

    // Indexes its title database does not name (the state `lodctr /R` repairs): one finding per
    // host naming them all and the objects that use them, so that a provider whose names went
    // missing is one line, not one per counter; hosts missing the same indexes share it.
    if (!timeline.unnamed_now.empty()) {
      std::set<std::string> users;  // the objects whose snapshots use them
      int64_t in_use_since = INT64_MAX;
      for (const InventoryVersion* version : timeline.last_versions) {
        for (const ObjectInventory& object : version->inventory.objects) {
          const bool uses =
              timeline.unnamed_now.contains(object.index) ||
              std::any_of(object.counters.begin(), object.counters.end(),
                          [&](uint32_t counter) { return timeline.unnamed_now.contains(counter); });
          if (!uses) continue;
          users.insert(titles.Name(object.index));
          in_use_since = std::min(in_use_since, version->since_ns);
        }
      }
      const std::string indexes = IndexRanges(timeline.unnamed_now);
      const size_t count = timeline.unnamed_now.size();
      AddHost(own, HealthFindingKind::kUnnamedIndex, "", indexes,
              HostFinding{name,
                          std::max(TitlesInForceSince(timeline, request.at_ns), in_use_since),
                          {},
                          "its title database does not name " +
                              (count == 1 ? "index " + indexes + ", which its snapshots use"
                                          : std::to_string(count) + " indexes its snapshots use (" +
                                                indexes + ")") +
                              ", in " + ListSome(users, 8),
                          "run `lodctr /R` as administrator to rebuild the counter names from "
                          "the providers' files, then `winmgmt /resyncperf`"});
    }

    if (!host.last_error.empty() && host.last_error_ns >= request.from_ns &&
        host.last_error_ns <= request.at_ns) {
      AddHost(own, HealthFindingKind::kCollectionError, "", host.last_error,
              HostFinding{name,
                          host.last_error_ns,
                          {},
                          host.last_error,
                          "see the agent's log on the host (or the server's, for an agentless "
                          "host) around that time"});
    }
  }
  FindTitlesThatDiffer(timelines, request.at_ns, own);
  for (const Timeline& timeline : timelines) {
    FindDisabledProviders(timeline, own);
    FindNameTrouble(timeline, request.at_ns, own);
    FindLosses(*timeline.host, request, own);
    FindInvalidCounterRuns(*timeline.host, request, last_sample_before, own);
    FindSlowObjects(*timeline.host, request, own, report.slowest_objects);
    FindInstanceGaps(*timeline.host, request, own);
  }
  for (auto& [key, finding] : own) report.findings.push_back(std::move(finding));

  // An object missing or lost where its provider is disabled: that is the cause.
  std::map<std::string, const HealthHost*> host_named;
  for (const Timeline& timeline : timelines) {
    host_named.emplace(timeline.host->inventories.host, timeline.host);
  }
  for (HealthFinding& finding : report.findings) {
    if (finding.kind != HealthFindingKind::kObjectMissing &&
        finding.kind != HealthFindingKind::kObjectLost &&
        finding.kind != HealthFindingKind::kObjectNotReturned) {
      continue;
    }
    for (HostFinding& found : finding.hosts) {
      const DisabledProviderSince* disabled =
          DisabledProviderOf(*host_named.at(found.host), FoldCase(finding.object));
      if (disabled == nullptr) continue;
      // What the index-list pass said (its agent asks for it) stays: the cause follows.
      const size_t asked_end = found.cause.rfind(kAskedByIndexEnd);
      found.cause = (asked_end == std::string::npos
                         ? ""
                         : found.cause.substr(0, asked_end + kAskedByIndexEnd.size())) +
                    "its provider is disabled: " + std::string(kDisablePerformanceCounters) +
                    " is " + std::to_string(disabled->provider.disable_value) + " under " +
                    ProviderKeyPath(disabled->provider.service);
      found.action = EnableProviderAction(disabled->provider.service);
    }
  }

  for (HealthFinding& finding : report.findings) {
    std::sort(finding.hosts.begin(), finding.hosts.end(),
              [](const HostFinding& a, const HostFinding& b) { return a.host < b.host; });
    for (const HostFinding& host : finding.hosts) {
      finding.newest_ns = std::max(finding.newest_ns, host.since_ns);
    }
  }
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const HealthFinding& a, const HealthFinding& b) {
                     return std::forward_as_tuple(b.hosts.size(), a.kind, a.object, a.counter) <
                            std::forward_as_tuple(a.hosts.size(), b.kind, b.object, b.counter);
                   });
  return report;
}

}  // namespace perfhive::query
