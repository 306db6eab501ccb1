#include "tests/bench/realistic_fleet/host_titles.h"

#include <charconv>

#include "perfdata/title_list.h"

namespace perfhive::fleet {

uint32_t HostTitles::base_index() const {
  auto entry = names_->find(1);
  if (entry == names_->end()) return 0;
  uint32_t index = 0;
  const std::string& text = entry->second;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
  return error == std::errc() && end == text.data() + text.size() ? index : 0;
}

uint32_t HostTitles::NextFreeIndex() const {
  const uint32_t last = names_->empty() ? 0 : names_->rbegin()->first;
  return (last | 1) + 1;
}

std::map<uint32_t, uint32_t> HostTitles::Reregister(const std::set<uint32_t>& indexes) {
  std::map<uint32_t, std::string> names = *names_;
  std::map<uint32_t, uint32_t> moved;
  uint32_t next = NextFreeIndex();
  for (uint32_t index : indexes) {
    auto entry = names.find(index);
    if (entry == names.end()) continue;
    std::string name = std::move(entry->second);
    names.erase(entry);
    names.emplace(next, std::move(name));
    moved.emplace(index, next);
    next += 2;
  }
  Publish(std::move(names));
  return moved;
}

void HostTitles::Install(uint32_t counters, uint64_t number) {
  std::map<uint32_t, std::string> names = *names_;
  uint32_t next = NextFreeIndex();
  const std::string provider = "Fleet Provider " + std::to_string(number);
  names.emplace(next, provider);
  for (uint32_t c = 1; c <= counters; ++c) {
    names.emplace(next + 2 * c, provider + " Counter " + std::to_string(c));
  }
  Publish(std::move(names));
}

void HostTitles::Publish(std::map<uint32_t, std::string> names) {
  bytes_ = std::make_shared<const std::vector<uint8_t>>(EncodeTitleList(names));
  names_ = std::make_shared<const std::map<uint32_t, std::string>>(std::move(names));
}

}  // namespace perfhive::fleet
