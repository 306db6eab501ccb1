// perfhive-agent: reads this host's performance data. `snapshot` writes one raw
// PERF_DATA_BLOCK (and the title database) to files, for offline use and for checking a
// source by hand.

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "perfdata/status.h"
#include "sources/object_names_query.h"
#include "sources/snapshot_source.h"

#ifdef _WIN32
#include "sources/hkpd/hkpd_source.h"
#else
#include "sources/msrrp/msrrp_source.h"
#include "sources/procfs/procfs_source.h"
#endif

namespace perfhive {
namespace {

#ifdef _WIN32
constexpr const char* kDefaultSource = "hkpd";
#else
constexpr const char* kDefaultSource = "procfs";
#endif

struct SnapshotOptions {
  std::string source = kDefaultSource;
  std::string query = "Global";
  std::vector<std::string> objects;  // names or indexes; replace `query` when given
  std::string output;
  std::string titles_output;
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
  std::string target;       // a host without an agent, "\\HOST[:PORT]"; replaces --source
  std::string credentials;  // for --target: an smbclient authentication file
};

Result<std::unique_ptr<SnapshotSource>> OpenSource(const SnapshotOptions& options) {
#ifdef _WIN32
  if (!options.target.empty()) {
    if (!options.credentials.empty()) {
      return Status::Error(
          "on Windows, --target connects as the agent's own account; "
          "--credentials is for Linux");
    }
    return MakeRemoteHkpdSource(options.target);
  }
  if (options.source == "hkpd") return MakeLocalHkpdSource();
  return Status::Error("the " + options.source +
                       " source reads Linux's /proc and is not available on Windows; use "
                       "--source hkpd");
#else
  if (!options.target.empty()) return OpenMsrrpSource(options.target, options.credentials);
  if (options.source == "procfs") {
    Result<std::unique_ptr<ProcfsSource>> source = ProcfsSource::Create(
        ProcfsOptions{.proc_root = options.proc_root, .sys_root = options.sys_root});
    if (!source.ok()) return source.status();
    return std::unique_ptr<SnapshotSource>(std::move(source).value());
  }
  return Status::Error("the " + options.source +
                       " source reads HKEY_PERFORMANCE_DATA and is only available on Windows; "
                       "on this platform use --source procfs");
#endif
}

Status WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return Status::Error("cannot create " + path + ": " + std::strerror(errno));
  bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  int error = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written) return Status::Error("cannot write " + path + ": " + std::strerror(error));
  return Status();
}

Status RunSnapshot(const SnapshotOptions& options) {
  Result<std::unique_ptr<SnapshotSource>> source = OpenSource(options);
  if (!source.ok()) return source.status();
  std::string query = options.query;
  if (!options.objects.empty()) {
    // Names become indexes through this host's own title database.
    Result<TitleBytes> titles = (*source)->ReadTitles();
    if (!titles.ok()) return titles.status();
    Result<std::string> indexes = QueryForObjectNames(*titles, options.objects);
    if (!indexes.ok()) return indexes.status();
    query = std::move(indexes).value();
  }
  Result<std::vector<uint8_t>> snapshot = (*source)->TakeSnapshot(query);
  for (const std::string& warning : (*source)->TakeWarnings()) {
    std::cerr << "perfhive-agent: warning: " << warning << "\n";
  }
  if (!snapshot.ok()) return snapshot.status();
  if (Status status = WriteFile(options.output, *snapshot); !status.ok()) return status;
  if (options.titles_output.empty()) return Status();
  Result<TitleBytes> titles = (*source)->ReadTitles();
  if (!titles.ok()) return titles.status();
  return WriteFile(options.titles_output, titles->counters);
}

}  // namespace
}  // namespace perfhive

int main(int argc, char** argv) {
  CLI::App app{"perfhive-agent: reads this host's performance data"};
  app.require_subcommand(1);

  perfhive::SnapshotOptions options;
  CLI::App* snapshot = app.add_subcommand(
      "snapshot", "Write one raw snapshot (PERF_DATA_BLOCK) and optionally the title database");
  snapshot
      ->add_option("--source", options.source, "Where to read: procfs (Linux) or hkpd (Windows)")
      ->check(CLI::IsMember({"procfs", "hkpd"}))
      ->capture_default_str();
  snapshot
      ->add_option("--query", options.query,
                   "Objects to read: Global, Costly, or object indexes such as \"230 238\"")
      ->capture_default_str();
  snapshot->add_option("--object", options.objects,
                       "An object to read, by name in the host's language database or by index "
                       "(repeatable; replaces --query), e.g. --object Processor --object 230");
  snapshot->add_option("--output", options.output, "File for the raw snapshot")->required();
  snapshot->add_option("--titles-output", options.titles_output,
                       "File for the title database: the bytes \"Counter 009\" returns");
  snapshot->add_option("--target", options.target,
                       "A host without an agent, \\\\HOST or \\\\HOST:PORT, read over the remote "
                       "registry (replaces --source)");
  snapshot->add_option("--credentials", options.credentials,
                       "For --target on Linux: a file with `username = NAME`, `password = SECRET` "
                       "and optionally `domain = DOMAIN` (default: PERFHIVE_SMB_USER, "
                       "PERFHIVE_SMB_PASSWORD, PERFHIVE_SMB_DOMAIN)");
  snapshot->add_option("--proc-root", options.proc_root, "procfs: where /proc is")
      ->capture_default_str();
  snapshot->add_option("--sys-root", options.sys_root, "procfs: where /sys is")
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  perfhive::Status status = perfhive::RunSnapshot(options);
  if (!status.ok()) {
    std::cerr << "perfhive-agent: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
