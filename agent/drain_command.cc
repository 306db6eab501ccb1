#include "agent/drain_command.h"

#include <asio.hpp>
#include <csignal>
#include <memory>
#include <vector>

#include "agent/instance_id.h"
#include "agent/outbox.h"
#include "agent/run_command.h"
#include "agent/shipper.h"
#include "agent/spool.h"

namespace perfhive {
namespace {

// How often the drain checks whether the server has answered everything.
constexpr std::chrono::milliseconds kPoll{50};
// Snapshots a drain keeps in memory; the rest are read from the spool as they are sent.
constexpr uint64_t kMemoryBytes = 16ull << 20;

// The folders to drain: the root and the folders directly in it.
std::vector<std::string> FoldersUnder(Env& env, const std::string& root) {
  std::vector<std::string> folders = {root};
  Result<std::vector<std::string>> names = env.ListDirectory(root);
  if (!names.ok()) return folders;
  for (const std::string& name : *names) {
    std::string path = root + "/" + name;
    if (env.ListDirectory(path).ok()) folders.push_back(path);
  }
  return folders;
}

// One owner's snapshots of one folder, with the stream that ships them.
struct Drain {
  std::unique_ptr<Outbox> outbox;
  std::unique_ptr<Shipper> shipper;
  SnapshotOwner owner;
  size_t count = 0;
};

}  // namespace

int DrainSpools(const AgentConfig& config, Env& env, Logger& log) {
  Result<ServerConnection> server = ConnectionFromConfig(config, env, log);
  if (!server.ok()) {
    log.Error(server.error());
    return 1;
  }
  std::string root = config.spool_dir.empty() ? DefaultSpoolDirectory() : config.spool_dir;
  bool complete = true;
  std::vector<std::unique_ptr<Spool>> spools;  // outlive the drains over them
  std::vector<Drain> drains;
  for (const std::string& folder : FoldersUnder(env, root)) {
    Result<std::unique_ptr<Spool>> spool =
        Spool::Open(env, folder, config.spool_max_bytes, std::nullopt, log);
    if (!spool.ok()) {
      log.Error(spool.error());
      complete = false;
      continue;
    }
    std::vector<Spool::Entry> recovered = (*spool)->TakeRecovered();
    if (recovered.empty()) continue;
    // By owner, in the order they were spooled.
    std::vector<std::pair<SnapshotOwner, std::vector<Spool::Entry>>> owners;
    for (Spool::Entry& entry : recovered) {
      SnapshotOwner owner = entry.record.owner;
      if (owner.host.name.empty()) {
        if (config.host_name.empty()) {
          complete = false;
          continue;
        }
        owner = SnapshotOwner{.host = {.name = config.host_name, .os = "", .os_version = ""}};
      }
      auto it = std::find_if(owners.begin(), owners.end(),
                             [&](const auto& o) { return o.first.SameHostAs(owner); });
      if (it == owners.end()) it = owners.insert(owners.end(), {owner, {}});
      it->first = owner;  // the newest OS the host reported
      it->second.push_back(std::move(entry));
    }
    if (!complete && config.host_name.empty()) {
      log.Warning(folder +
                  " holds snapshots of agents that did not record their host; give "
                  "--host-name NAME to ship them as NAME");
    }
    for (auto& [owner, entries] : owners) {
      Drain& drain = drains.emplace_back();
      drain.owner = owner;
      drain.count = entries.size();
      drain.outbox = std::make_unique<Outbox>(**spool, std::move(entries), kMemoryBytes, log);
      drain.shipper = std::make_unique<Shipper>(ShipperOptions{.server = server->server,
                                                               .credentials = server->credentials,
                                                               .renewable = nullptr,
                                                               .token = server->token,
                                                               .owner = owner,
                                                               .agent_version = kAgentVersion,
                                                               .instance_id = NewInstanceId()},
                                                *drain.outbox, log);
      log.Info("draining " + std::to_string(drain.count) + " snapshots of " + owner.Label() +
               " from " + folder);
    }
    spools.push_back(std::move(spool).value());
  }

  asio::io_context io;
  bool stopped_early = false;
  asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const std::error_code& error, int) {
    if (error) return;
    stopped_early = true;
    io.stop();
  });
  asio::steady_timer timeout(io);
  if (config.timeout) {
    timeout.expires_after(*config.timeout);
    timeout.async_wait([&](const std::error_code& error) {
      if (error) return;
      stopped_early = true;
      io.stop();
    });
  }
  asio::steady_timer poll(io);
  std::function<void()> check = [&] {
    bool done = std::all_of(drains.begin(), drains.end(),
                            [](const Drain& d) { return d.outbox->size() == 0; });
    if (done) {
      io.stop();
      return;
    }
    poll.expires_after(kPoll);
    poll.async_wait([&](const std::error_code& error) {
      if (!error) check();
    });
  };
  for (Drain& drain : drains) drain.shipper->Start();
  check();
  io.run();

  for (Drain& drain : drains) {
    drain.shipper->Stop();
    ShipperStats shipped = drain.shipper->stats();
    uint64_t lost = drain.outbox->lost().total();
    std::string summary = "drained " + drain.owner.Label() + ": " + std::to_string(shipped.acked) +
                          " of " + std::to_string(drain.count) + " acknowledged (" +
                          std::to_string(shipped.duplicates) + " duplicates), " +
                          std::to_string(drain.outbox->size()) + " left in the spool, " +
                          std::to_string(lost) + " lost";
    if (lost > 0 || drain.outbox->size() > 0) {
      complete = false;
      log.Error(summary);
    } else {
      log.Info(summary);
    }
  }
  if (stopped_early) complete = false;
  return complete ? 0 : 1;
}

}  // namespace perfhive
