// Helpers for the Linux source's tests: take a snapshot, find values in it by object index,
// instance name and counter index as a person reading the bytes would, and start child
// processes that cannot outlive the test.

#ifndef PERFHIVE_TESTS_SOURCES_PROCFS_TEST_UTIL_H_
#define PERFHIVE_TESTS_SOURCES_PROCFS_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "perfdata/calculator.h"
#include "perfdata/raw_counter.h"
#include "perfdata/snapshot_builder.h"
#include "perfdata/snapshot_reader.h"
#include "sources/snapshot_source.h"
#include "tests/support/child_process.h"

namespace perfhive::testing {

// One snapshot and the reader over it; a failed snapshot is a test failure and reads as an
// empty snapshot.
class TakenSnapshot {
 public:
  TakenSnapshot(SnapshotSource& source, std::string_view query)
      : bytes_(TakeOrEmpty(source, query)), reader_(*SnapshotReader::Open(bytes_)) {}
  TakenSnapshot(const TakenSnapshot&) = delete;
  TakenSnapshot& operator=(const TakenSnapshot&) = delete;

  const SnapshotReader& reader() const { return reader_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  static std::vector<uint8_t> TakeOrEmpty(SnapshotSource& source, std::string_view query) {
    Result<std::vector<uint8_t>> bytes = source.TakeSnapshot(query);
    EXPECT_TRUE(bytes.ok()) << query << ": " << bytes.error();
    return bytes.ok() ? std::move(bytes).value() : SnapshotBuilder().Build();
  }

  std::vector<uint8_t> bytes_;
  SnapshotReader reader_;
};

// A clock's time in 100 ns units, to compare with a snapshot's times.
inline int64_t ClockIn100ns(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<int64_t>(now.tv_sec) * 10'000'000 + now.tv_nsec / 100;
}

inline std::vector<uint32_t> ObjectIndexes(const SnapshotReader& reader) {
  std::vector<uint32_t> indexes;
  for (ObjectView object : reader.objects()) indexes.push_back(object.name_index());
  return indexes;
}

// The counter definition with title index `counter`; occurrence 1 is the second definition
// with that index (a base counter, which carries its counter's index).
inline std::optional<CounterDefinitionView> FindCounter(const ObjectView& object, uint32_t counter,
                                                        int occurrence = 0) {
  for (CounterDefinitionView definition : object.counters()) {
    if (definition.name_index() == counter && occurrence-- == 0) return definition;
  }
  return std::nullopt;
}

inline std::vector<std::string> InstanceNames(const ObjectView& object) {
  std::vector<std::string> names;
  for (InstanceView instance : object.instances()) names.push_back(InstanceName(object, instance));
  return names;
}

// The value in the first instance named `instance` (any instance when it is empty: objects
// without instances).
inline std::optional<uint64_t> ValueOf(const SnapshotReader& snapshot, uint32_t object_index,
                                       std::string_view instance, uint32_t counter,
                                       int occurrence = 0) {
  std::optional<ObjectView> object = snapshot.FindObject(object_index);
  if (!object) return std::nullopt;
  std::optional<CounterDefinitionView> definition = FindCounter(*object, counter, occurrence);
  if (!definition) return std::nullopt;
  for (InstanceView view : object->instances()) {
    if (instance.empty() || InstanceName(*object, view) == instance) {
      return view.counters().Value(*definition);
    }
  }
  return std::nullopt;
}

// The value in the instance whose counter `key_counter` equals `key` (a process by its ID
// Process).
inline std::optional<uint64_t> ValueWhere(const SnapshotReader& snapshot, uint32_t object_index,
                                          uint32_t key_counter, uint64_t key, uint32_t counter) {
  std::optional<ObjectView> object = snapshot.FindObject(object_index);
  if (!object) return std::nullopt;
  std::optional<CounterDefinitionView> key_definition = FindCounter(*object, key_counter);
  std::optional<CounterDefinitionView> definition = FindCounter(*object, counter);
  if (!key_definition || !definition) return std::nullopt;
  for (InstanceView view : object->instances()) {
    if (view.counters().Value(*key_definition) == key) return view.counters().Value(*definition);
  }
  return std::nullopt;
}

// Picks one instance of an object: by name, or by the value of a key counter (a process by its
// ID Process), the first that matches.
struct InstanceKey {
  std::string name;
  uint32_t key_counter = 0;
  uint64_t key = 0;
};
inline InstanceKey Named(std::string name) { return {std::move(name)}; }
inline InstanceKey Where(uint32_t key_counter, uint64_t key) { return {{}, key_counter, key}; }

// The raw counter `counter` of the instance `which` picks, as the calculator reads it.
inline std::optional<RawCounter> RawCounterOf(const SnapshotReader& snapshot, uint32_t object_index,
                                              const InstanceKey& which, uint32_t counter) {
  std::optional<ObjectView> object = snapshot.FindObject(object_index);
  if (!object) return std::nullopt;
  std::optional<CounterDefinitionView> definition, next, key_definition;
  for (CounterDefinitionView view : object->counters()) {
    if (definition && !next) next = view;
    if (!definition && view.name_index() == counter) definition = view;
    if (!key_definition && view.name_index() == which.key_counter) key_definition = view;
  }
  if (!definition) return std::nullopt;
  for (InstanceView instance : object->instances()) {
    bool match = which.key_counter != 0
                     ? key_definition && instance.counters().Value(*key_definition) == which.key
                     : InstanceName(*object, instance) == which.name;
    if (!match) continue;
    return ReadRawCounter(SampleTimes::Of(snapshot, *object), *definition, next ? &*next : nullptr,
                          instance.counters());
  }
  return std::nullopt;
}

// The value PDH shows for the counter between two snapshots (or in `newer` alone for types that
// need one sample); status NO_INSTANCE when an instance or counter is missing.
inline CounterValue ValueBetween(const SnapshotReader& older, const SnapshotReader& newer,
                                 uint32_t object_index, const InstanceKey& which,
                                 uint32_t counter) {
  std::optional<RawCounter> before = RawCounterOf(older, object_index, which, counter);
  std::optional<RawCounter> after = RawCounterOf(newer, object_index, which, counter);
  if (!before || !after) return CounterValue{PdhStatus::kNoInstance, 0};
  return ComputeCounterValue(*after, &*before);
}

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SOURCES_PROCFS_TEST_UTIL_H_
