// RemoteWriter: pushes computed samples to one Prometheus remote-write receiver. Samples are
// sharded by series (each series stays in order on one shard), batched into requests, retried
// with exponential backoff on network errors, 429 and 5xx, and dropped on other refusals;
// on_delivered tells the caller, per host and in order, up to which of its positions everything
// was settled, so the caller persists that position and resumes from it (at least once).
// docs/prometheus.md describes what the receiver refuses and what happens then.

#ifndef PERFHIVE_EXPORT_REMOTE_WRITER_H_
#define PERFHIVE_EXPORT_REMOTE_WRITER_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "export/computed_sample.h"
#include "export/http_client.h"
#include "export/metric_naming.h"
#include "export/series_labels.h"

namespace perfhive {

struct RemoteWriterOptions {
  std::string url;  // "http://127.0.0.1:9090/api/v1/write"
  HttpClientOptions http;
  size_t shards = 4;
  size_t max_samples_per_request = 2000;
  size_t max_pending_samples = 1'000'000;  // Offer refuses a batch that would exceed it
  std::chrono::milliseconds min_backoff{30};
  std::chrono::milliseconds max_backoff{5000};
  // One line per event worth a person's attention: the first refusal or failure of a burst, and
  // how many followed it once the burst ends. May be called from any shard's thread.
  std::function<void(const std::string& line)> log;
  // `position` of `host`'s newest batch such that it and every earlier batch of that host were
  // settled: delivered, or dropped because the receiver refused them. Called in position order
  // per host, from a shard's thread, under a lock: keep it short.
  std::function<void(const std::string& host, uint64_t position)> on_delivered;
};

// Counts since the writer started, in samples. A sample in a request that fails twice counts
// twice in `failed`; `retried` counts samples sent again after a failure.
struct RemoteWriterStats {
  uint64_t sent = 0;
  uint64_t failed = 0;
  uint64_t dropped = 0;
  uint64_t retried = 0;
  uint64_t pending = 0;           // offered, not yet settled
  int64_t newest_offered_ms = 0;  // newest sample time offered, 0 before the first
  int64_t newest_sent_ms = 0;     // newest sample time the receiver accepted
  // How far delivery is behind what was offered.
  int64_t lag_ms() const { return newest_offered_ms - std::min(newest_sent_ms, newest_offered_ms); }
};

class RemoteWriter {
 public:
  explicit RemoteWriter(RemoteWriterOptions options);  // starts the shards' threads
  ~RemoteWriter();
  RemoteWriter(const RemoteWriter&) = delete;
  RemoteWriter& operator=(const RemoteWriter&) = delete;

  // Takes `host`'s samples, each series oldest first, and the caller's `position` for them
  // (increasing per host); one thread per host at a time. `host_labels` (HostLabelsForExport's)
  // go on every series of the batch. False when the queue has no room: nothing was taken, offer
  // it again later.
  bool Offer(const std::string& host, std::span<const ComputedSample> samples, uint64_t position,
             const Labels& host_labels = {});

  // Waits until every offered sample is settled; false if `timeout` passed first.
  bool Flush(std::chrono::milliseconds timeout);

  // Stops the shards: a request in flight is abandoned, nothing queued is sent or acknowledged
  // (the caller resends it from its persisted position). Also done by the destructor.
  void Stop();

  RemoteWriterStats stats() const;

 private:
  struct Batch {
    std::string host;
    uint64_t position = 0;
    size_t remaining = 0;  // entries not settled; guarded by ack_mutex_
  };
  struct Entry {
    Labels labels;
    size_t series_hash = 0;
    int64_t timestamp_ms = 0;
    double value = 0;
    Batch* batch = nullptr;
  };
  struct Shard {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<Entry> queue;
    std::thread thread;
  };
  enum class Outcome { kSettled, kAbandoned };

  void RunShard(Shard& shard);
  Outcome Send(std::span<Entry> entries, HttpClient& client);
  // Where to cut a refused request so one part may pass: a boundary between two hosts' or two
  // timestamps' samples near the middle, 0 when there is none.
  static size_t SplitPoint(std::span<const Entry> entries);
  void Settle(std::span<const Entry> entries);
  // Pops `host`'s settled batches from the front and reports the last one. Needs ack_mutex_.
  void AcknowledgeSettled(const std::string& host);
  void NoteRefusal(long status, const std::string& body, size_t samples);
  void NoteFailure(const std::string& what);
  void NoteSuccess();
  bool SleepUnlessStopped(std::chrono::milliseconds delay);

  RemoteWriterOptions options_;
  MetricNamer namer_;
  std::vector<std::unique_ptr<Shard>> shards_;
  std::atomic<bool> stopping_{false};
  std::mutex stop_mutex_;
  std::condition_variable stop_wake_;

  std::mutex ack_mutex_;
  std::condition_variable settled_;
  std::map<std::string, std::deque<std::unique_ptr<Batch>>> batches_;  // per host, oldest first
  std::atomic<uint64_t> pending_{0};

  std::mutex burst_mutex_;
  uint64_t refused_in_burst_ = 0;
  uint64_t failed_in_burst_ = 0;

  std::atomic<uint64_t> sent_{0};
  std::atomic<uint64_t> failed_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> retried_{0};
  std::atomic<int64_t> newest_offered_ms_{0};
  std::atomic<int64_t> newest_sent_ms_{0};
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_REMOTE_WRITER_H_
