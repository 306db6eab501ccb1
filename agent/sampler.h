// Sampler: takes snapshots on schedule. Every configured query has its own Asio timer; a tick
// that comes too late for its slot (the source was slow, the machine asleep) is counted and
// skipped, so samples are never bunched. Before each snapshot the title database is checked;
// a new one goes to the shipper, and object names are looked up in it again.

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
#include "agent/outbox.h"
#include "agent/shipper.h"
#include "sources/snapshot_source.h"

namespace perfhive {

struct SamplerStats {
  uint64_t taken = 0;
  uint64_t missed_ticks = 0;
  uint64_t failed = 0;
};

class Sampler {
 public:
  Sampler(asio::io_context& io, SnapshotSource& source, Shipper& shipper, Outbox& outbox,
          Logger& log, std::string instance_id, const std::vector<QuerySchedule>& queries,
          std::chrono::milliseconds interval);
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Reads the title database now; the first snapshot of every query is taken as soon as the
  // io_context runs, then each on its schedule.
  void Start();
  void Stop();
  // Called once when the source has nothing more to give (a replay ran out of files).
  void OnSourceExhausted(std::function<void()> callback) { on_exhausted_ = std::move(callback); }

  const SamplerStats& stats() const { return stats_; }

 private:
  struct Schedule {
    QuerySchedule query;
    std::string label;                // for logs
    std::string resolved;             // what TakeSnapshot gets; empty: not resolved yet
    std::chrono::milliseconds every;  // between ticks
    asio::steady_timer timer;
    asio::steady_timer::time_point due;
  };

  void Tick(Schedule& schedule);
  void Arm(Schedule& schedule);
  // Reads the title database if it changed; false when no database is known at all.
  bool RefreshTitles();
  bool Resolve(Schedule& schedule);

  SnapshotSource& source_;
  Shipper& shipper_;
  // Whether the last snapshot failed, and how: health goes to the server on each change.
  bool failing_ = false;
  std::string last_failure_;
  Outbox& outbox_;
  Logger& log_;
  const std::string instance_id_;
  std::vector<std::unique_ptr<Schedule>> schedules_;
  std::function<void()> on_exhausted_;
  bool stopped_ = false;

  std::optional<TitleBytes> titles_;
  std::vector<TitleRef> title_refs_;
  uint64_t next_sequence_ = 1;
  SamplerStats stats_;
};

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SAMPLER_H_
