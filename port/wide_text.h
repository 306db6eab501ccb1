// UTF-8 text (paths, service names) as the wide strings the Windows "W" functions take. Used by
// Windows code only; portable code keeps UTF-8.

#ifndef PERFHIVE_PORT_WIDE_TEXT_H_
#define PERFHIVE_PORT_WIDE_TEXT_H_

#include <filesystem>
#include <string>

namespace perfhive {

inline std::wstring Wide(const std::string& utf8) {
  return std::filesystem::u8path(utf8).wstring();
}

}  // namespace perfhive

#endif  // PERFHIVE_PORT_WIDE_TEXT_H_
