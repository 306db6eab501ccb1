#include "perfdata/name_distance.h"

#include <algorithm>
#include <utility>

#include "perfdata/case_folding.h"

namespace perfhive {
namespace {

// The name's characters, case-folded.
std::u32string Folded(std::string_view name) {
  std::u32string units;
  for (size_t at = 0; at < name.size();) units.push_back(NextFoldedNameUnit(name, at));
  return units;
}

size_t Distance(const std::u32string& a, const std::u32string& b) {
  // Three rows of the table: a's prefixes of i − 2, i − 1 and i characters against b's.
  std::vector<size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      current[j] = std::min(
          {previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

size_t NameDistance(std::string_view a, std::string_view b) {
  return Distance(Folded(a), Folded(b));
}

std::vector<std::string> CloseNames(std::string_view written,
                                    std::span<const std::string> candidates, size_t max) {
  const std::u32string target = Folded(written);
  std::vector<std::pair<size_t, size_t>> close;  // distance, position in `candidates`
  for (size_t c = 0; c < candidates.size(); ++c) {
    const std::u32string name = Folded(candidates[c]);
    const size_t longer = std::max(target.size(), name.size());
    const size_t allowed = longer / 3;
    // The distance is at least the difference in length: most names are ruled out by it alone.
    if (longer - std::min(target.size(), name.size()) > allowed) continue;
    if (size_t distance = Distance(target, name); distance <= allowed) {
      close.emplace_back(distance, c);
    }
  }
  std::stable_sort(close.begin(), close.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> names;
  for (const auto& [distance, c] : close) {
    if (names.size() == max) break;
    const std::string& name = candidates[c];
    if (std::none_of(names.begin(), names.end(),
                     [&](const std::string& kept) { return EqualIgnoringCase(kept, name); })) {
      names.push_back(name);
    }
  }
  return names;
}

}  // namespace perfhive
