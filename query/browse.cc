#include "query/browse.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "perfdata/case_folding.h"
#include "perfdata/counter_type.h"
#include "perfdata/instance_names.h"
#include "perfdata/raw_counter.h"
#include "perfdata/winperf.h"
#include "query/units.h"

namespace perfhive::query {
namespace {

constexpr std::pair<uint32_t, std::string_view> kLevels[] = {{winperf::kDetailNovice, "novice"},
                                                             {winperf::kDetailAdvanced, "advanced"},
                                                             {winperf::kDetailExpert, "expert"},
                                                             {winperf::kDetailWizard, "wizard"}};

// Levenshtein distance over case-folded bytes: enough to catch a typo in a name.
size_t EditDistanceIgnoringCase(std::string_view a, std::string_view b) {
  std::string x = FoldCase(a), y = FoldCase(b);
  std::vector<size_t> row(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= x.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= y.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (x[i - 1] != y[j - 1])});
      diagonal = above;
    }
  }
  return row[y.size()];
}

// A browsed sample opened, as SnapshotReader::Open opens it.
Result<SnapshotReader> Open(const HostSample& sample) {
  Result<SnapshotReader> snapshot = SnapshotReader::Open(*sample.bytes);
  if (!snapshot.ok()) return Status::DataLoss("stored sample: " + snapshot.error());
  return snapshot;
}

Titles TitlesOf(const HostSample& sample) { return {sample.english.get(), sample.localized.get()}; }

}  // namespace

std::string DetailLevelName(uint32_t level) {
  for (const auto& [value, name] : kLevels) {
    if (value == level) return std::string(name);
  }
  return std::to_string(level);
}

std::optional<uint32_t> ParseDetailLevel(std::string_view text) {
  for (const auto& [value, name] : kLevels) {
    if (EqualIgnoringCase(name, text)) return value;
  }
  uint32_t number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return number;
}

std::string Titles::Name(uint32_t index) const {
  for (const TitleDatabase* titles : {english, localized}) {
    if (titles == nullptr) continue;
    if (std::optional<std::string_view> name = titles->Name(index)) return std::string(*name);
  }
  return std::to_string(index);
}

std::string Titles::Help(uint32_t index) const {
  for (const TitleDatabase* titles : {english, localized}) {
    if (titles == nullptr) continue;
    if (std::optional<std::string_view> help = titles->Help(index)) return std::string(*help);
  }
  return "";
}

std::vector<ObjectInfo> ListObjects(const SnapshotReader& snapshot, const Titles& titles,
                                    uint32_t max_detail) {
  std::vector<ObjectInfo> objects;
  for (ObjectView object : snapshot.objects()) {
    if (!object.has_data() || object.detail_level() > max_detail) continue;
    objects.push_back({object.name_index(), titles.Name(object.name_index()),
                       titles.Help(object.help_index()), object.detail_level(),
                       object.num_instances(), object.num_counters()});
  }
  return objects;
}

Result<std::vector<ObjectInfo>> ListObjects(std::span<const HostSample> samples,
                                            uint32_t max_detail) {
  std::vector<ObjectInfo> objects;
  for (size_t i = 0; i < samples.size(); ++i) {
    Result<SnapshotReader> snapshot = Open(samples[i]);
    if (!snapshot.ok()) {
      if (i == 0) return snapshot.status();
      continue;
    }
    for (ObjectInfo& object : ListObjects(*snapshot, TitlesOf(samples[i]), max_detail)) {
      auto listed = [&](const ObjectInfo& known) { return known.index == object.index; };
      if (i > 0 && std::any_of(objects.begin(), objects.end(), listed)) continue;
      objects.push_back(std::move(object));
    }
  }
  return objects;
}

Result<BrowsedObject> FindObject(std::span<const HostSample> samples, std::string_view object) {
  Status first_error = Status::NotFound("no sample to browse");
  for (size_t i = 0; i < samples.size(); ++i) {
    Result<SnapshotReader> snapshot = Open(samples[i]);
    if (!snapshot.ok()) {
      if (i == 0) return snapshot.status();
      continue;
    }
    Result<ObjectView> found = FindObject(*snapshot, TitlesOf(samples[i]), object);
    if (found.ok()) return BrowsedObject{&samples[i], *snapshot, *found};
    if (i == 0) first_error = found.status();
  }
  return first_error;
}

Result<ObjectView> FindObject(const SnapshotReader& snapshot, const Titles& titles,
                              std::string_view name) {
  std::string close;
  for (ObjectView object : snapshot.objects()) {
    if (!object.has_data()) continue;
    const uint32_t index = object.name_index();
    for (const TitleDatabase* database : {titles.english, titles.localized}) {
      if (database == nullptr) continue;
      std::optional<std::string_view> title = database->Name(index);
      if (title && EqualIgnoringCase(*title, name)) return object;
    }
    if (name == std::to_string(object.name_index())) return object;
    // Close: one name starts with the other, or they differ by a typo or two, ignoring case.
    std::string shown = titles.Name(object.name_index());
    size_t common = std::min(shown.size(), name.size());
    if ((common >= 3 && EqualIgnoringCase(shown.substr(0, common), name.substr(0, common))) ||
        EditDistanceIgnoringCase(shown, name) <= 2) {
      close += (close.empty() ? "" : ", ") + shown;
    }
  }
  return Status::NotFound("no object '" + std::string(name) + "' in the snapshot" +
                          (close.empty() ? "" : " (close: " + close + ")"));
}

std::vector<CounterInfo> ListCounters(const ObjectView& object, const Titles& titles,
                                      uint32_t max_detail) {
  std::vector<CounterInfo> counters;
  for (CounterDefinitionView counter : object.counters()) {
    if (IsBaseType(counter.type()) || counter.detail_level() > max_detail) continue;
    std::string name = titles.Name(counter.name_index());
    std::string unit = UnitOf(counter.type(), name);
    counters.push_back({counter.name_index(), std::move(name), titles.Help(counter.help_index()),
                        counter.type(), CounterTypeName(counter.type()), std::move(unit),
                        counter.detail_level(), counter.default_scale()});
  }
  return counters;
}

std::vector<InstanceInfo> ListInstances(const SnapshotReader& snapshot, const ObjectView& object) {
  std::vector<InstanceInfo> instances;
  if (!object.has_instance_list()) return instances;
  std::vector<InstancePathName> names = NameInstances(snapshot, object);
  std::vector<InstanceIdentity> identities = IdentifyInstances(object, names);
  for (size_t i = 0; i < names.size(); ++i) {
    instances.push_back({names[i].ToString(), std::move(identities[i])});
  }
  return instances;
}

}  // namespace perfhive::query
