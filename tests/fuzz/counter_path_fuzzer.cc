// Feeds arbitrary text to the counter path parser; whatever parses must format and parse back to
// the same path, and match patterns without crashing.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "perfdata/counter_path.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  perfhive::Result<perfhive::CounterPath> path = perfhive::ParseCounterPath(text);
  if (!path.ok()) return 0;
  perfhive::Result<perfhive::CounterPath> again =
      perfhive::ParseCounterPath(perfhive::FormatCounterPath(*path));
  if (!again.ok() || !(*again == *path)) std::abort();
  (void)perfhive::MatchesPattern(path->counter, path->object);
  return 0;
}
