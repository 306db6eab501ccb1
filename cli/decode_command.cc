#include "cli/decode_command.h"

#include <cerrno>
#include <cstdio>
#include <ostream>

#include "cli/error_text.h"
#include "cli/file_bytes.h"
#include "perfdata/counter_path.h"
#include "perfdata/snapshot_reader.h"
#include "perfdata/title_database.h"
#include "perfdata/title_database_file.h"
#include "query/decoded_snapshot.h"
#include "query/decoded_snapshot_renderers.h"

namespace perfhive::cli {
namespace {

// A snapshot file read and checked; the bytes stay with the reader.
struct LoadedSnapshot {
  std::vector<uint8_t> bytes;
  std::optional<SnapshotReader> reader;
};

Status Load(const std::string& path, LoadedSnapshot& loaded) {
  Result<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  loaded.bytes = std::move(bytes).value();
  Result<SnapshotReader> reader = SnapshotReader::Open(loaded.bytes);
  if (!reader.ok()) return Status::Error(path + ": " + reader.error());
  loaded.reader.emplace(*reader);
  return Status();
}

// Rates divide by the time between the samples, so the older one must come first: said once,
// rather than as a negative denominator on every rate.
std::string SamplesOutOfOrder(const std::string& first_path, const SnapshotReader& first,
                              const std::string& next_path, const SnapshotReader& next) {
  std::string message = next_path + " is older than " + first_path + ": its PerfTime " +
                        std::to_string(next.perf_time()) + " is before " +
                        std::to_string(first.perf_time());
  if (first.perf_freq() > 0) {
    char seconds[64];
    std::snprintf(seconds, sizeof seconds, " (%.3f s earlier)",
                  // Unsigned: times at opposite ends of int64_t cannot overflow.
                  static_cast<double>(static_cast<uint64_t>(first.perf_time()) -
                                      static_cast<uint64_t>(next.perf_time())) /
                      static_cast<double>(first.perf_freq()));
    message += seconds;
  }
  return message + "; give the older sample first: perfhive decode " + next_path + " " + first_path;
}

}  // namespace

int RunDecode(const DecodeOptions& options, std::ostream& out, std::ostream& err) {
  // Messages quote file names and what the files hold.
  auto fail = [&](const std::string& message) {
    err << "perfhive decode: " << ErrorForDisplay(message) << "\n";
    return 1;
  };
  std::optional<TitleDatabase> titles;
  if (options.titles_path) {
    Result<std::vector<uint8_t>> bytes = ReadFileBytes(*options.titles_path);
    if (!bytes.ok()) return fail(bytes.error());
    Result<TitleDatabase> parsed = LoadTitleDatabase(*bytes);
    if (!parsed.ok()) return fail(*options.titles_path + ": " + parsed.error());
    titles = std::move(parsed).value();
  }
  // With NEXT, what is printed is NEXT, with values computed from SNAPSHOT to NEXT.
  LoadedSnapshot first, second;
  if (Status s = Load(options.snapshot_path, first); !s.ok()) return fail(s.message());
  if (options.next_path) {
    if (Status s = Load(*options.next_path, second); !s.ok()) return fail(s.message());
  }
  const SnapshotReader& shown = options.next_path ? *second.reader : *first.reader;
  query::DecodeRequest request;
  request.previous = options.next_path ? &*first.reader : nullptr;
  request.titles = titles ? &*titles : nullptr;
  request.format.scale_factor = options.scale_factor;
  for (const std::string& pattern : options.paths) {
    Result<CounterPath> path = ParseCounterPath(pattern);
    if (!path.ok()) return fail(WithPathDisplay(path.status(), pattern).message());
    request.paths.push_back(std::move(path).value());
  }
  if (request.previous != nullptr && shown.perf_time() < request.previous->perf_time()) {
    return fail(
        SamplesOutOfOrder(options.snapshot_path, *request.previous, *options.next_path, shown));
  }
  query::DecodedSnapshot decoded = query::DecodeSnapshot(shown, request);
  if (options.format == DecodeOptions::Format::kJson) {
    query::RenderDecodedJson(decoded, out);
  } else {
    query::RenderDecodedTable(decoded, out);
  }
  out.flush();
  if (!out) return fail(OutputNotWritten(errno).message());
  return 0;
}

}  // namespace perfhive::cli
