#include "sources/procfs/instance_name.h"

namespace perfhive {

std::string PdhInstanceName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    switch (c) {
      case '(':
        c = '[';
        break;
      case ')':
        c = ']';
        break;
      case '/':
      case '\\':
      case '#':
        c = '_';
        break;
      default:
        break;
    }
  }
  return out;
}

}  // namespace perfhive
