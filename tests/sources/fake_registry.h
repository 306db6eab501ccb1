// FakeRegistry: a RegistryApi that serves values from memory and scripted failures, and records
// every call, for testing the Windows sources on any platform.

#ifndef PERFHIVE_TESTS_SOURCES_FAKE_REGISTRY_H_
#define PERFHIVE_TESTS_SOURCES_FAKE_REGISTRY_H_

#include <algorithm>
#include <deque>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sources/hkpd/registry_api.h"

namespace perfhive::testing {

class FakeRegistry : public RegistryApi {
 public:
  static constexpr RegistryKey kPerformanceData = 0x80000004;
  static constexpr RegistryKey kLocalMachine = 0x80000002;
  static constexpr RegistryKey kPerformanceNlsText = 0x80000060;

  struct Value {
    std::vector<uint8_t> bytes;
    uint32_t type = kRegBinary;
  };

  // Values per key; keys opened by OpenKey/ConnectRegistry get fresh numbers mapped by path.
  std::map<std::pair<std::string, std::string>, Value> values;  // (key path, name) → value
  // Error codes returned, in order, before a query of `name` is answered normally.
  std::map<std::string, std::deque<long>> scripted_errors;
  // Report this size with ERROR_MORE_DATA (Wine reports 0).
  uint32_t more_data_size = 0;
  // Value names answered with success and a copy cut to the buffer instead of ERROR_MORE_DATA
  // (Samba's "Global").
  std::set<std::string> truncated_replies;
  // Machines that answer RegConnectRegistryW, and the error for the others.
  std::vector<std::string> reachable_machines;
  long connect_error = 53;
  // When not 0, RegConnectRegistryW(HKEY_LOCAL_MACHINE) fails with it on every machine.
  long local_machine_connect_error = 0;

  std::vector<std::string> calls;
  std::vector<uint32_t> query_buffer_sizes;
  int open_keys = 0;

  RegistryKey Predefined(PredefinedKey which) override {
    switch (which) {
      case PredefinedKey::kPerformanceData:
        return kPerformanceData;
      case PredefinedKey::kPerformanceNlsText:
        return kPerformanceNlsText;
      case PredefinedKey::kLocalMachine:
        break;
    }
    return kLocalMachine;
  }

  long QueryValue(RegistryKey key, const std::string& name, uint8_t* buffer, uint32_t* size,
                  uint32_t* type) override {
    calls.push_back("query " + PathOf(key) + " " + name);
    query_buffer_sizes.push_back(*size);
    if (auto script = scripted_errors.find(name);
        script != scripted_errors.end() && !script->second.empty()) {
      long rc = script->second.front();
      script->second.pop_front();
      return rc;
    }
    auto it = values.find({PathOf(key), name});
    if (it == values.end()) return win_error::kFileNotFound;
    const std::vector<uint8_t>& bytes = it->second.bytes;
    *type = it->second.type;
    if (bytes.size() > *size) {
      if (truncated_replies.contains(name)) {
        std::copy_n(bytes.begin(), *size, buffer);
        return win_error::kSuccess;
      }
      *size = more_data_size;
      return win_error::kMoreData;
    }
    std::copy(bytes.begin(), bytes.end(), buffer);
    *size = static_cast<uint32_t>(bytes.size());
    return win_error::kSuccess;
  }

  long ConnectRegistry(const std::string& machine, PredefinedKey which, RegistryKey* out) override {
    calls.push_back("connect " + machine);
    if (std::find(reachable_machines.begin(), reachable_machines.end(), machine) ==
        reachable_machines.end()) {
      return connect_error;
    }
    if (which == PredefinedKey::kLocalMachine && local_machine_connect_error != 0) {
      return local_machine_connect_error;
    }
    std::string root = which == PredefinedKey::kPerformanceData ? "HKPD" : "HKLM";
    *out = NewKey(machine + ":" + root);
    return win_error::kSuccess;
  }

  long OpenKey(RegistryKey parent, const std::string& subkey, RegistryKey* out) override {
    std::string path = PathOf(parent) + "\\" + subkey;
    // A key exists when some value lives in it or below it.
    bool exists = std::any_of(values.begin(), values.end(), [&](const auto& entry) {
      return entry.first.first == path || entry.first.first.starts_with(path + "\\");
    });
    if (!exists) return win_error::kFileNotFound;
    *out = NewKey(path);
    return win_error::kSuccess;
  }

  // Subkeys are the keys some value lives under, below `key`, by name.
  long EnumKey(RegistryKey key, uint32_t index, std::string* name) override {
    calls.push_back("enum " + PathOf(key) + " " + std::to_string(index));
    const std::string prefix = PathOf(key) + "\\";
    std::set<std::string> subkeys;
    for (const auto& [where, value] : values) {
      if (!where.first.starts_with(prefix)) continue;
      const std::string rest = where.first.substr(prefix.size());
      subkeys.insert(rest.substr(0, rest.find('\\')));
    }
    if (index >= subkeys.size()) return win_error::kNoMoreItems;
    *name = *std::next(subkeys.begin(), index);
    return win_error::kSuccess;
  }

  long CloseKey(RegistryKey key) override {
    calls.push_back("close " + PathOf(key));
    if (key != kPerformanceData && key != kLocalMachine && key != kPerformanceNlsText) --open_keys;
    return win_error::kSuccess;
  }

  std::string PathOf(RegistryKey key) const {
    if (key == kPerformanceData) return "HKPD";
    if (key == kLocalMachine) return "HKLM";
    if (key == kPerformanceNlsText) return "HKPN";
    auto it = paths_.find(key);
    return it == paths_.end() ? "?" : it->second;
  }

 private:
  RegistryKey NewKey(const std::string& path) {
    ++open_keys;
    RegistryKey key = next_key_++;
    paths_[key] = path;
    return key;
  }

  RegistryKey next_key_ = 1000;
  std::map<RegistryKey, std::string> paths_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_SOURCES_FAKE_REGISTRY_H_
