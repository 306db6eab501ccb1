// Names compared ignoring case outside a snapshot: filling a title database and looking names up
// in another case, in English and in Russian (what a localized host's paths cost), and hashing
// and comparing names as the instance naming's duplicate table does.

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "perfdata/case_folding.h"
#include "perfdata/title_database.h"

namespace perfhive {
namespace {

constexpr int kNames = 4000;

// "<stem> <n>" for n in [0, kNames).
std::vector<std::string> NumberedNames(const std::string& stem) {
  std::vector<std::string> names;
  for (int n = 0; n < kNames; ++n) names.push_back(stem + " " + std::to_string(n));
  return names;
}

const std::vector<std::string>& EnglishNames() {
  static const std::vector<std::string> names = NumberedNames("Requests Rejected");
  return names;
}
const std::vector<std::string>& EnglishNamesUpper() {
  static const std::vector<std::string> names = NumberedNames("REQUESTS REJECTED");
  return names;
}
const std::vector<std::string>& RussianNames() {
  static const std::vector<std::string> names = NumberedNames("Отклонено запросов");
  return names;
}
const std::vector<std::string>& RussianNamesUpper() {
  static const std::vector<std::string> names = NumberedNames("ОТКЛОНЕНО ЗАПРОСОВ");
  return names;
}

TitleDatabase DatabaseOf(const std::vector<std::string>& names) {
  TitleDatabase titles;
  for (int n = 0; n < kNames; ++n) titles.AddName(2 * n, names[n]);
  return titles;
}

void AddNames(benchmark::State& state, const std::vector<std::string>& names) {
  for (auto _ : state) {
    TitleDatabase titles = DatabaseOf(names);
    benchmark::DoNotOptimize(titles.num_names());
  }
  state.SetItemsProcessed(state.iterations() * kNames);
}

// Looks up every name in `lookups` in a database of `names`; reports how many were found.
void LookUpNames(benchmark::State& state, const std::vector<std::string>& names,
                 const std::vector<std::string>& lookups) {
  const TitleDatabase titles = DatabaseOf(names);
  size_t found = 0;
  for (auto _ : state) {
    found = 0;
    for (const std::string& name : lookups) found += titles.IndexesOf(name).size();
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * kNames);
  state.counters["found"] = static_cast<double>(found);
}

void BM_TitleDatabaseAddEnglishNames(benchmark::State& state) { AddNames(state, EnglishNames()); }
BENCHMARK(BM_TitleDatabaseAddEnglishNames)->Unit(benchmark::kMicrosecond);

void BM_TitleDatabaseAddRussianNames(benchmark::State& state) { AddNames(state, RussianNames()); }
BENCHMARK(BM_TitleDatabaseAddRussianNames)->Unit(benchmark::kMicrosecond);

void BM_TitleDatabaseLookUpEnglishInUpperCase(benchmark::State& state) {
  LookUpNames(state, EnglishNames(), EnglishNamesUpper());
}
BENCHMARK(BM_TitleDatabaseLookUpEnglishInUpperCase)->Unit(benchmark::kMicrosecond);

void BM_TitleDatabaseLookUpRussianInUpperCase(benchmark::State& state) {
  LookUpNames(state, RussianNames(), RussianNamesUpper());
}
BENCHMARK(BM_TitleDatabaseLookUpRussianInUpperCase)->Unit(benchmark::kMicrosecond);

// Hashes every name and compares it with its upper-case spelling.
void HashAndCompare(benchmark::State& state, const std::vector<std::string>& names,
                    const std::vector<std::string>& upper) {
  size_t equal = 0;
  for (auto _ : state) {
    equal = 0;
    for (int n = 0; n < kNames; ++n) {
      benchmark::DoNotOptimize(HashIgnoringCase(names[n]));
      equal += EqualIgnoringCase(names[n], upper[n]);
    }
    benchmark::DoNotOptimize(equal);
  }
  state.SetItemsProcessed(state.iterations() * kNames);
  state.counters["equal"] = static_cast<double>(equal);
}

void BM_HashAndCompareEnglishNames(benchmark::State& state) {
  HashAndCompare(state, EnglishNames(), EnglishNamesUpper());
}
BENCHMARK(BM_HashAndCompareEnglishNames)->Unit(benchmark::kMicrosecond);

void BM_HashAndCompareRussianNames(benchmark::State& state) {
  HashAndCompare(state, RussianNames(), RussianNamesUpper());
}
BENCHMARK(BM_HashAndCompareRussianNames)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace perfhive
