// `perfhive decode`: prints a raw snapshot file offline, every object, instance and counter with
// names resolved through a title database, as a table for people or JSON for scripts. Given a
// later sample too, adds each counter's value; samples given newest first are refused.

#ifndef PERFHIVE_CLI_DECODE_COMMAND_H_
#define PERFHIVE_CLI_DECODE_COMMAND_H_

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace perfhive::cli {

struct DecodeOptions {
  std::string snapshot_path;
  // A later sample of the same host: then NEXT is printed, with each counter's value and status
  // computed from SNAPSHOT to NEXT.
  std::optional<std::string> next_path;
  std::optional<std::string> titles_path;  // lodctr /S dump or "Counter 009" MULTI_SZ bytes
  std::vector<std::string> paths;          // counter paths (wildcards allowed) to print only
  // The caller's scale factor, as PdhSetCounterScaleFactor: values ×10^scale_factor (−7..7).
  // A counter's DefaultScale is shown, never applied.
  int scale_factor = 0;
  enum class Format { kTable, kJson } format = Format::kTable;
};

// Returns the process exit code; output goes to `out`, errors to `err`.
int RunDecode(const DecodeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_DECODE_COMMAND_H_
