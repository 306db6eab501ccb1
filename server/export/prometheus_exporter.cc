#include "server/export/prometheus_exporter.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "export/series_labels.h"
#include "port/env.h"

namespace perfhive {
std::string ReceiverName(const std::string& url) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t end = url.find('/', start);
  size_t at = url.rfind('@', end);
  if (at == std::string::npos || at < start) return url;
  return url.substr(0, start) + url.substr(at + 1);
}

PrometheusExporter::PrometheusExporter(Store& store, SampleLoader& loader,
                                       const ExportSelection& selection,
                                       PrometheusExporterOptions options, ServerLog& log)
    : store_(store),
      loader_(loader),
      selection_(selection),
      options_(std::move(options)),
      receiver_(ReceiverName(options_.writer.url)),
      log_(log) {
  RemoteWriterOptions writer = options_.writer;
  writer.on_delivered = [this](const std::string& host, uint64_t position) {
    OnDelivered(host, position);
  };
  writer.log = [this](const std::string& line) {
    log_.Warn("export", {{"receiver", receiver_}, {"message", line}});
  };
  writer_ = std::make_unique<RemoteWriter>(std::move(writer));
  thread_ = std::thread([this] { Run(); });
}

PrometheusExporter::~PrometheusExporter() { Stop(); }

void PrometheusExporter::Stop() {
  {
    std::lock_guard lock(stop_mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  stop_wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  writer_->Stop();
  PersistDelivered();
}

PrometheusExporterStats PrometheusExporter::stats() const {
  return {writer_->stats(), samples_offered_.load(), offers_refused_.load()};
}

void PrometheusExporter::OnDelivered(const std::string& host, uint64_t position) {
  std::lock_guard lock(delivered_mutex_);
  int64_t& delivered = delivered_[host];
  delivered = std::max(delivered, static_cast<int64_t>(position));
}

void PrometheusExporter::PersistDelivered() {
  std::vector<ExportPosition> positions;
  {
    std::lock_guard lock(delivered_mutex_);
    for (const auto& [host, time_ns] : delivered_) positions.push_back({host, time_ns});
    delivered_.clear();
  }
  if (Status status = store_.catalog().SetExportPositions(receiver_, positions); !status.ok()) {
    log_.WarnOncePerBurst("export-position", receiver_,
                          {{"receiver", receiver_}, {"message", status.message()}});
    // Kept for the next attempt; a newer report for the host supersedes it.
    std::lock_guard lock(delivered_mutex_);
    for (const ExportPosition& p : positions) {
      int64_t& delivered = delivered_[p.host];
      delivered = std::max(delivered, p.sample_time_ns);
    }
  }
}

bool PrometheusExporter::WaitUnlessStopped(std::chrono::milliseconds delay) {
  std::unique_lock lock(stop_mutex_);
  return !stop_wake_.wait_for(lock, delay, [&] { return stopping_; });
}

bool PrometheusExporter::ExportHost(const std::string& host) {
  // A full queue would refuse the batch anyway: do not compute it.
  if (writer_->stats().pending >= options_.writer.max_pending_samples) {
    ++offers_refused_;
    return false;
  }
  // A host never exported starts options_.new_host_lookback back.
  auto [at, added] = offered_.try_emplace(
      host, UnixNanosNow() - std::chrono::nanoseconds(options_.new_host_lookback).count());
  int64_t after = at->second;
  Result<query::HostSamples> samples =
      loader_.LoadAfter(host, after, options_.max_samples_per_round);
  if (!samples.ok()) {
    log_.WarnOncePerBurst("export-load", receiver_ + " " + host,
                          {{"receiver", receiver_}, {"host", host}, {"message", samples.error()}});
    return false;
  }
  if (samples->samples.empty() || samples->samples.back().time_ns <= after) return false;
  size_t fresh = 0;
  for (const query::HostSample& sample : samples->samples) fresh += sample.time_ns > after;
  int64_t newest = samples->samples.back().time_ns;
  Result<std::vector<ComputedSample>> computed = selection_.Compute(*samples, after);
  if (!computed.ok()) {
    log_.WarnOncePerBurst("export-compute", receiver_ + " " + host,
                          {{"receiver", receiver_}, {"host", host}, {"message", computed.error()}});
    return false;
  }
  // An empty batch is offered too: it moves the host's position once the batches before it are
  // settled.
  const Labels host_labels =
      options_.host_labels != nullptr ? HostLabelsForExport(options_.host_labels(host)) : Labels();
  if (!writer_->Offer(host, *computed, static_cast<uint64_t>(newest), host_labels)) {
    ++offers_refused_;
    return false;
  }
  samples_offered_ += computed->size();
  at->second = newest;
  return fresh >= options_.max_samples_per_round;
}

void PrometheusExporter::Run() {
  // Resume where the last run's deliveries were persisted.
  for (;;) {
    Result<std::vector<ExportPosition>> positions = store_.catalog().ExportPositions(receiver_);
    if (positions.ok()) {
      for (const ExportPosition& p : *positions) offered_[p.host] = p.sample_time_ns;
      log_.Info("export",
                {{"receiver", receiver_}, {"hosts_resumed", std::to_string(positions->size())}});
      break;
    }
    log_.WarnOncePerBurst("export-position", receiver_,
                          {{"receiver", receiver_}, {"message", positions.error()}});
    if (!WaitUnlessStopped(options_.idle_wait)) return;
  }
  auto persisted_at = std::chrono::steady_clock::now();
  for (;;) {
    bool more = false;
    Result<std::vector<HostRecord>> hosts = store_.catalog().ListHosts();
    if (hosts.ok()) {
      for (const HostRecord& host : *hosts) {
        {
          std::lock_guard lock(stop_mutex_);
          if (stopping_) return;
        }
        more |= ExportHost(host.info.name);
      }
    } else {
      log_.WarnOncePerBurst("export-hosts", receiver_,
                            {{"receiver", receiver_}, {"message", hosts.error()}});
    }
    if (std::chrono::steady_clock::now() - persisted_at >= options_.persist_every) {
      PersistDelivered();
      persisted_at = std::chrono::steady_clock::now();
    }
    if (!WaitUnlessStopped(more ? std::chrono::milliseconds(0) : options_.idle_wait)) return;
  }
}

}  // namespace perfhive
