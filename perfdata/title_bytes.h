// TitleBytes: a host's title database exactly as its source returns it, the bytes of the
// "Counter <lang>" and "Help <lang>" REG_MULTI_SZ values (UTF-16LE). Agents ship these bytes
// untouched and the server parses them (TitleDatabase), so what a host said can always be read
// again.

#ifndef PERFHIVE_PERFDATA_TITLE_BYTES_H_
#define PERFHIVE_PERFDATA_TITLE_BYTES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace perfhive {

// The language a host's display-language database travels and is stored under, whatever its
// Perflib id: the server looks a host's second language up by this name alone.
inline constexpr char kDisplayLanguage[] = "CurrentLanguage";

struct TitleBytes {
  // "009" for English; a Perflib subkey name otherwise ("007", "CurrentLanguage").
  std::string language = "009";
  std::vector<uint8_t> counters;
  std::vector<uint8_t> helps;

  bool operator==(const TitleBytes&) const = default;
};

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_TITLE_BYTES_H_
