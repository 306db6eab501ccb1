#include "perfdata/title_database.h"

#include <utility>

#include "perfdata/case_folding.h"
#include "perfdata/title_list.h"

namespace perfhive {

void TitleDatabase::AddName(uint32_t index, std::string name) {
  auto [it, inserted] = names_.try_emplace(index);
  if (!inserted && !EqualIgnoringCase(it->second, name)) {
    auto old = indexes_by_name_.find(std::string_view(it->second));
    old->second.erase(index);
    if (old->second.empty()) indexes_by_name_.erase(old);
  }
  it->second = std::move(name);
  // Copies the name only when no name equal to it ignoring case is there yet.
  indexes_by_name_.try_emplace(it->second).first->second.insert(index);
}

void TitleDatabase::AddHelp(uint32_t index, std::string help) {
  helps_.insert_or_assign(index, std::move(help));
}

std::optional<std::string_view> TitleDatabase::Name(uint32_t index) const {
  auto it = names_.find(index);
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string_view> TitleDatabase::Help(uint32_t index) const {
  auto it = helps_.find(index);
  if (it == helps_.end()) return std::nullopt;
  return it->second;
}

std::vector<uint32_t> TitleDatabase::IndexesOf(std::string_view name) const {
  auto it = indexes_by_name_.find(name);
  if (it == indexes_by_name_.end()) return {};
  return std::vector<uint32_t>(it->second.begin(), it->second.end());
}

uint32_t TitleDatabase::last_name_index() const {
  return names_.empty() ? 0 : names_.rbegin()->first;
}

size_t TitleDatabase::num_names() const { return names_.size(); }

size_t TitleDatabase::num_helps() const { return helps_.size(); }

std::vector<uint8_t> TitleDatabase::EncodeNames() const { return EncodeTitleList(names_); }

std::vector<uint8_t> TitleDatabase::EncodeHelps() const { return EncodeTitleList(helps_); }

}  // namespace perfhive
