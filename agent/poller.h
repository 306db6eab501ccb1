// Poller: an agent polling hosts that have no agent, over the remote registry. Each polled host
// has a pipeline of its own (stream, spool folder, schedule, health), as if it had an agent.
//
// Which hosts: the agent's own --target flags and [[target]] tables, or, for a poller that
// follows the center (--poller), the targets of the central plan that names the poller
// (docs/policies.md). Such a poller keeps a stream of its own, as itself, on which it hears its
// plan; when the plan's targets change it starts polling the new hosts and stops polling the
// ones taken away, without a restart. A target taken away keeps what the server has not
// answered in its spool folder, shipped when it is given back (or by `perfhive-agent drain`).
// Its own [[target]] tables hold while no plan names targets, and lend their settings
// (credentials, interval, call timeout) to planned targets of the same name.

#ifndef PERFHIVE_AGENT_POLLER_H_
#define PERFHIVE_AGENT_POLLER_H_

#include <asio.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "agent/host_log_stream.h"
#include "agent/host_pipeline.h"
#include "agent/logger.h"
#include "port/env.h"
#include "proto/collection_plan.h"
#include "sources/snapshot_source.h"

namespace perfhive {

// The channel credentials of an enrolled credential, as renewal needs them.
using CredentialsFor =
    std::function<Result<std::shared_ptr<grpc::ChannelCredentials>>(const EnrolledCredential&)>;

class Poller {
 public:
  struct Context {
    asio::io_context& io;
    asio::thread_pool& workers;  // where remote hosts are read
    Env& env;
    Logger& log;
    ServerConnection server;  // the poller's: its enrolled certificate speaks for its hosts
    CredentialsFor credentials_for;
    std::string spool_root;  // each host's folder is under it
  };

  // `name`: the poller's own (--poller-name, else this machine's). With config.poller, `own` is
  // this machine's source and identity, for the poller's own stream; else null.
  static Result<std::unique_ptr<Poller>> Create(const AgentConfig& config, std::string name,
                                                std::unique_ptr<SnapshotSource> own,
                                                HostIdentity identity, Context context);
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;

  void Start();
  void StopSampling();
  // Ends every stream, spooling what the server has not answered. Then the worker pool may be
  // joined.
  void Finish();
  // Logs each polled host's summary; the snapshots lost in all.
  uint64_t LogSummaries();
  size_t host_count() const { return polled_.size(); }

 private:
  // One polled host: its log (which the pipeline writes to) and its pipeline.
  struct Polled {
    RemoteHostConfig target;
    std::unique_ptr<HostLogStream> stream;
    std::unique_ptr<Logger> log;
    std::unique_ptr<HostPipeline> pipeline;
  };

  Poller(const AgentConfig& config, std::string name, Context context);

  // The targets in force under `plan`: its own where it names none.
  std::vector<RemoteHostConfig> TargetsUnder(const CollectionPlan& plan) const;
  // Starts polling the targets not polled yet and stops polling those not in `targets`; what
  // could not be done, one line each. `started`: whether new pipelines start at once.
  std::vector<std::string> Reconcile(const std::vector<RemoteHostConfig>& targets, bool started);
  Result<Polled> MakePolled(const RemoteHostConfig& target);
  // On the io thread: the poller's plan is in force; what could not be done, one line each.
  std::vector<std::string> OnPlan(const CollectionPlan& plan);
  // Destroys stopped pipelines once no read of theirs is running, then polls what waited for
  // their spool folders.
  void ReapRetired();

  const AgentConfig& config_;
  const std::string name_;
  Context context_;
  std::mutex host_log_mutex_;  // one line at a time from every host's log
  std::unique_ptr<HostPipeline> own_;
  std::map<std::string, Polled> polled_;  // by spool folder name (the name folded)
  std::vector<Polled> retired_;           // stopped, waiting for their reads to end
  std::vector<RemoteHostConfig> wanted_;  // in force: what Reconcile was last given
  asio::steady_timer reap_timer_;
  bool started_ = false;
  bool finished_ = false;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_POLLER_H_
