// PrometheusExporter: pushes the computed values of every host to one remote-write receiver,
// from the durable store. One thread walks the hosts: for each, it loads the samples stored
// after the host's position (bounded per round), computes the selected counters, and offers
// them to its RemoteWriter with the newest sample time as the position. What the writer reports
// delivered is persisted in the store (export_positions), and a restarted server resumes from
// there: at least once, no gap after a restart or an outage of the receiver. docs/prometheus.md
// says what happens to samples the receiver no longer accepts.

#ifndef PERFHIVE_SERVER_EXPORT_PROMETHEUS_EXPORTER_H_
#define PERFHIVE_SERVER_EXPORT_PROMETHEUS_EXPORTER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "export/remote_writer.h"
#include "query/host_selector.h"
#include "server/export/export_selection.h"
#include "server/log/server_log.h"
#include "store/sample_loader.h"
#include "store/store.h"

namespace perfhive {

struct PrometheusExporterOptions {
  RemoteWriterOptions writer;  // its on_delivered and log are the exporter's own
  // Samples of one host loaded and offered per round at most: bounds memory and lets every
  // host make progress while one has a long backlog.
  size_t max_samples_per_round = 30;
  // How long to wait when no host had anything new, or the writer's queue was full.
  std::chrono::milliseconds idle_wait{500};
  // How often delivered positions are written to the store at most.
  std::chrono::milliseconds persist_every{1000};
  // Each host's labels, put on its series (export/series_labels.h); null: none.
  query::HostLabelsLookup host_labels = nullptr;
  // A host never exported to this receiver starts this far back: a default Prometheus refuses
  // anything older than an hour (docs/prometheus.md), and a store of months would otherwise be
  // resent on the first start; a receiver that takes older samples can be backfilled.
  std::chrono::seconds new_host_lookback{3600};
};

// What the exporter did since it started, for /metrics.
struct PrometheusExporterStats {
  RemoteWriterStats writer;
  uint64_t samples_offered = 0;
  uint64_t offers_refused = 0;  // the writer's queue was full: offered again later
};

class PrometheusExporter {
 public:
  // Starts the thread. `receiver` names the positions in the store and the receiver on /metrics:
  // the URL without credentials.
  PrometheusExporter(Store& store, SampleLoader& loader, const ExportSelection& selection,
                     PrometheusExporterOptions options, ServerLog& log);
  ~PrometheusExporter();
  PrometheusExporter(const PrometheusExporter&) = delete;
  PrometheusExporter& operator=(const PrometheusExporter&) = delete;

  // Stops the thread and the writer, and persists what was delivered. Also done by the
  // destructor.
  void Stop();

  const std::string& receiver() const { return receiver_; }
  PrometheusExporterStats stats() const;

 private:
  void Run();
  // Offers the host's next samples; true when it may have more right away.
  bool ExportHost(const std::string& host);
  void OnDelivered(const std::string& host, uint64_t position);
  void PersistDelivered();
  bool WaitUnlessStopped(std::chrono::milliseconds delay);

  Store& store_;
  SampleLoader& loader_;
  const ExportSelection& selection_;
  const PrometheusExporterOptions options_;
  const std::string receiver_;
  ServerLog& log_;

  // Where the next round of each host starts: the newest sample time offered (only the
  // exporter's thread uses it).
  std::map<std::string, int64_t> offered_;

  std::mutex delivered_mutex_;
  std::map<std::string, int64_t> delivered_;  // reported by the writer, not yet persisted

  std::atomic<uint64_t> samples_offered_{0};
  std::atomic<uint64_t> offers_refused_{0};

  std::mutex stop_mutex_;
  std::condition_variable stop_wake_;
  bool stopping_ = false;

  std::unique_ptr<RemoteWriter> writer_;  // after what its callbacks use
  std::thread thread_;
};

// The URL without user and password, as receivers are named in logs, the store and /metrics.
std::string ReceiverName(const std::string& url);

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_EXPORT_PROMETHEUS_EXPORTER_H_
