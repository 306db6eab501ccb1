// Sampler: takes snapshots on schedule. Every configured query has its own Asio timer; a tick
// that comes too late for its slot (the source was slow, the machine asleep) is counted and
// skipped, so samples are never bunched. Before each snapshot the title databases are checked;
// new ones (English and the display language's) go to the outbox, and object names are looked
// up again in the English one. Everything it takes (snapshots, title databases, reports for the
// server) goes to the outbox, never further.
//
// The queries can be replaced while it runs (Replan: a central plan arrived, or went away).
//
// Given a worker pool, the reads (titles and snapshot) run on it and their results come back to
// the io thread, so a remote host that is slow or dead holds one worker and its own schedule,
// never the io thread or other hosts. A host has at most one read in flight: a tick that comes
// while the previous read still runs is skipped like a late one.

#ifndef PERFHIVE_AGENT_SAMPLER_H_
#define PERFHIVE_AGENT_SAMPLER_H_

#include <asio.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/agent_config.h"
#include "agent/logger.h"
#include "agent/object_sweep.h"
#include "agent/outbox.h"
#include "sources/snapshot_source.h"

namespace perfhive {

struct SamplerStats {
  uint64_t taken = 0;
  uint64_t missed_ticks = 0;
  uint64_t failed = 0;
};

class Sampler {
 public:
  // Every snapshot taken is `owner`'s, numbered within `instance_id`.
  Sampler(asio::io_context& io, SnapshotSource& source, Outbox& outbox, Logger& log,
          SnapshotOwner owner, std::string instance_id, const std::vector<QuerySchedule>& queries,
          std::chrono::milliseconds interval, asio::thread_pool* workers = nullptr);
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Without workers, reads the title database now (so the first Hello names it); the first
  // snapshot of every query is taken as soon as the io_context runs, then each on its schedule.
  void Start();
  void Stop();
  // A read runs on the worker pool; its result comes back to the io thread, to this sampler.
  bool reading() const { return reading_; }
  // Replaces the queries and their schedules: the old ones stop, the new ones take their first
  // snapshot now. A read in flight finishes and its snapshot is kept.
  void Replan(const std::vector<QuerySchedule>& queries, std::chrono::milliseconds interval);
  // Called once when the source has nothing more to give (a replay ran out of files).
  void OnSourceExhausted(std::function<void()> callback) { on_exhausted_ = std::move(callback); }
  // A recording hands out its files in order, one a tick: a skipped tick delays a file and loses
  // nothing, so it is not reported as a loss.
  void set_replaying(bool replaying) { replaying_ = replaying; }

  const SamplerStats& stats() const { return stats_; }

 private:
  struct Schedule {
    QuerySchedule query;
    std::string label;                // for logs
    std::string resolved;             // what TakeSnapshot gets; empty: not resolved yet
    std::chrono::milliseconds every;  // between ticks
    asio::steady_timer timer;
    asio::steady_timer::time_point due;
    bool retired = false;  // replaced by Replan: takes no more snapshots
  };

  // A host's title databases as SnapshotSource::ReadTitles gives them, English first.
  using TitleSet = std::vector<TitleBytes>;

  // What one tick read from the source; made where the read runs, used on the io thread.
  struct Reading {
    std::shared_ptr<const TitleSet> new_titles;       // a database changed (or was first read)
    Status titles_error;                              // reading the database failed
    std::string query;                                // what TakeSnapshot was given
    Status resolve_error;                             // object names not in the database
    std::optional<Result<std::vector<uint8_t>>> raw;  // unset: no snapshot was asked for
    std::vector<std::string> warnings;
    // Asked for when due (ProvidersDue): the host's disabled providers.
    std::optional<Result<std::vector<DisabledProvider>>> providers;
    std::vector<v1::ObjectTiming> timed;  // objects timed alone for the sweep
  };

  // Runs where the pool runs it: touches only the source and what it is given.
  // After the snapshot, it times `to_time` (ObjectSweep::Time) within a tenth of `every`.
  static Reading Read(SnapshotSource& source, std::shared_ptr<const TitleSet> titles,
                      const QuerySchedule& query, std::string resolved, bool check_providers,
                      const std::vector<uint32_t>& to_time, std::chrono::milliseconds every);
  // Hands a finished sweep to the outbox, and logs the objects slow enough to matter.
  void NoteSweep(const v1::ObjectTimings& sweep);
  // Whether this tick should look for disabled providers: the first, then once an hour.
  bool ProvidersDue();
  void NoteProviders(Result<std::vector<DisabledProvider>> providers);
  // Sends what the pipeline lost when a count grew, and at the first tick: a few bytes at most
  // once a tick.
  void ReportLosses();
  // Handlers hold their schedule, so that one replaced while its timer or read is pending lives
  // until they are done.
  void Tick(const std::shared_ptr<Schedule>& schedule);
  void Finish(const std::shared_ptr<Schedule>& schedule, Reading reading);
  // The next slot after now: slots that already passed are skipped, not taken late.
  void Reschedule(const std::shared_ptr<Schedule>& schedule);
  void Arm(const std::shared_ptr<Schedule>& schedule);
  void MakeSchedules(const std::vector<QuerySchedule>& queries, std::chrono::milliseconds interval);
  void ArmAllNow();
  void AdoptTitles(std::shared_ptr<const TitleSet> titles);
  void ReportFailure(const std::string& error);

  asio::io_context& io_;
  asio::thread_pool* const workers_;
  bool reading_ = false;  // a read runs on the pool
  SnapshotSource& source_;
  // Whether the last snapshot failed, and how: health goes to the server on each change.
  bool failing_ = false;
  std::string last_failure_;
  Outbox& outbox_;
  Logger& log_;
  const SnapshotOwner owner_;
  const std::string instance_id_;
  std::vector<std::shared_ptr<Schedule>> schedules_;
  std::function<void()> on_exhausted_;
  bool replaying_ = false;
  bool stopped_ = false;

  std::shared_ptr<const TitleSet> titles_;
  std::vector<TitleRef> title_refs_;
  // Disabled providers: when to look next, what was last reported, the last failure logged.
  std::chrono::steady_clock::time_point providers_due_{};
  std::optional<std::vector<DisabledProvider>> providers_reported_;
  std::string providers_error_;
  // Each object's time asked for alone; not for a replay, whose reads hand out its files.
  ObjectSweep sweep_;
  // Losses: since when they are counted, and what was last sent.
  const int64_t started_unix_nanos_;
  std::optional<std::string> losses_reported_;  // the serialized counts
  uint64_t next_sequence_ = 1;
  SamplerStats stats_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SAMPLER_H_
