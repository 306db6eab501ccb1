#include "export/remote_writer.h"

#include <algorithm>
#include <unordered_map>

#include "export/write_request.h"

namespace perfhive {
namespace {

void RaiseTo(std::atomic<int64_t>& value, int64_t candidate) {
  int64_t current = value.load();
  while (candidate > current && !value.compare_exchange_weak(current, candidate)) {
  }
}

size_t HashLabels(const Labels& labels) {
  size_t hash = 0;
  for (const Label& label : labels) {
    hash = hash * 31 + std::hash<std::string>()(label.name);
    hash = hash * 31 + std::hash<std::string>()(label.value);
  }
  return hash;
}

// Refusals that name samples the receiver will never take, whatever the status: Prometheus
// answers 500 "too old sample" for samples behind its out-of-order window, and a sender that
// retried those would retry forever.
bool RefusesSamplesForGood(long status, const std::string& body) {
  if (status >= 400 && status < 500) return status != 429;
  return status >= 500 && (body.find("too old sample") != std::string::npos ||
                           body.find("out of bounds") != std::string::npos);
}

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

}  // namespace

RemoteWriter::RemoteWriter(RemoteWriterOptions options) : options_(std::move(options)) {
  options_.shards = std::max<size_t>(options_.shards, 1);
  options_.max_samples_per_request = std::max<size_t>(options_.max_samples_per_request, 1);
  for (size_t i = 0; i < options_.shards; ++i) shards_.push_back(std::make_unique<Shard>());
  for (auto& shard : shards_) {
    shard->thread = std::thread([this, raw = shard.get()] { RunShard(*raw); });
  }
}

RemoteWriter::~RemoteWriter() { Stop(); }

void RemoteWriter::Stop() {
  {
    std::lock_guard lock(stop_mutex_);
    stopping_ = true;
  }
  stop_wake_.notify_all();
  for (auto& shard : shards_) {
    { std::lock_guard lock(shard->mutex); }
    shard->wake.notify_all();
    if (shard->thread.joinable()) shard->thread.join();
  }
}

bool RemoteWriter::Offer(const std::string& host, std::span<const ComputedSample> samples,
                         uint64_t position, const Labels& host_labels) {
  if (pending_.fetch_add(samples.size()) + samples.size() > options_.max_pending_samples &&
      !samples.empty()) {
    pending_.fetch_sub(samples.size());
    return false;
  }
  auto batch = std::make_unique<Batch>();
  batch->host = host;
  batch->position = position;
  batch->remaining = samples.size();
  Batch* raw_batch = batch.get();

  std::vector<std::vector<Entry>> per_shard(shards_.size());
  int64_t newest = 0;
  for (const ComputedSample& sample : samples) {
    const MetricName& metric =
        namer_.Map(sample.object_english, sample.counter_english, sample.counter_type);
    Entry entry;
    entry.labels = SeriesLabels(sample, metric.name, host_labels);
    entry.series_hash = HashLabels(entry.labels);
    entry.timestamp_ms = sample.timestamp_ms;
    entry.value = metric.Apply(sample.value);
    entry.batch = raw_batch;
    newest = std::max(newest, sample.timestamp_ms);
    per_shard[entry.series_hash % shards_.size()].push_back(std::move(entry));
  }
  {
    std::lock_guard lock(ack_mutex_);
    batches_[host].push_back(std::move(batch));
    if (samples.empty()) {
      AcknowledgeSettled(host);  // once the batches before it are settled
      return true;
    }
  }
  RaiseTo(newest_offered_ms_, newest);
  for (size_t i = 0; i < shards_.size(); ++i) {
    if (per_shard[i].empty()) continue;
    Shard& shard = *shards_[i];
    {
      std::lock_guard lock(shard.mutex);
      std::move(per_shard[i].begin(), per_shard[i].end(), std::back_inserter(shard.queue));
    }
    shard.wake.notify_one();
  }
  return true;
}

bool RemoteWriter::Flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(ack_mutex_);
  return settled_.wait_for(lock, timeout, [&] { return pending_.load() == 0; });
}

RemoteWriterStats RemoteWriter::stats() const {
  RemoteWriterStats stats;
  stats.sent = sent_.load();
  stats.failed = failed_.load();
  stats.dropped = dropped_.load();
  stats.retried = retried_.load();
  stats.pending = pending_.load();
  stats.newest_offered_ms = newest_offered_ms_.load();
  stats.newest_sent_ms = newest_sent_ms_.load();
  return stats;
}

void RemoteWriter::RunShard(Shard& shard) {
  HttpClient client(options_.http);
  client.set_abort_flag(&stopping_);
  while (true) {
    std::vector<Entry> request;
    {
      std::unique_lock lock(shard.mutex);
      shard.wake.wait(lock, [&] { return stopping_.load() || !shard.queue.empty(); });
      if (stopping_) return;
      size_t take = std::min(shard.queue.size(), options_.max_samples_per_request);
      request.reserve(take);
      std::move(shard.queue.begin(), shard.queue.begin() + static_cast<std::ptrdiff_t>(take),
                std::back_inserter(request));
      shard.queue.erase(shard.queue.begin(),
                        shard.queue.begin() + static_cast<std::ptrdiff_t>(take));
    }
    if (Send(request, client) == Outcome::kAbandoned) return;
  }
}

RemoteWriter::Outcome RemoteWriter::Send(std::span<Entry> entries, HttpClient& client) {
  // One TimeSeries per series, its samples in the order they were offered.
  std::vector<SeriesSamples> series;
  std::unordered_multimap<size_t, size_t> index;  // series hash → position in `series`
  for (const Entry& entry : entries) {
    size_t at = series.size();
    auto [first, last] = index.equal_range(entry.series_hash);
    for (auto it = first; it != last; ++it) {
      if (*series[it->second].labels == entry.labels) at = it->second;
    }
    if (at == series.size()) {
      index.emplace(entry.series_hash, at);
      series.push_back({&entry.labels, {}});
    }
    series[at].samples.push_back({entry.timestamp_ms, entry.value});
  }
  const std::string body = EncodeWriteRequest(series);
  static const std::vector<std::string> kHeaders(std::begin(kRemoteWriteHeaders),
                                                 std::end(kRemoteWriteHeaders));
  std::chrono::milliseconds backoff = options_.min_backoff;
  for (bool retry = false;; retry = true) {
    if (stopping_) return Outcome::kAbandoned;
    if (retry) retried_ += entries.size();
    Result<HttpResponse> response = client.Post(options_.url, body, kHeaders);
    if (!response.ok() && response.status().code() == StatusCode::kCancelled) {
      return Outcome::kAbandoned;
    }
    if (response.ok() && response->status >= 200 && response->status < 300) {
      sent_ += entries.size();
      int64_t newest = 0;
      for (const Entry& entry : entries) newest = std::max(newest, entry.timestamp_ms);
      RaiseTo(newest_sent_ms_, newest);
      NoteSuccess();
      Settle(entries);
      return Outcome::kSettled;
    }
    if (response.ok() && RefusesSamplesForGood(response->status, response->body)) {
      // One bad sample refuses the whole request; cut it where hosts or times change, so the
      // samples that were not the cause get through.
      bool splittable =
          response->status == 400 || response->status == 413 || response->status >= 500;
      size_t cut = splittable ? SplitPoint(entries) : 0;
      if (cut != 0) {
        if (Send(entries.first(cut), client) == Outcome::kAbandoned) return Outcome::kAbandoned;
        return Send(entries.subspan(cut), client);
      }
      dropped_ += entries.size();
      NoteRefusal(response->status, response->body, entries.size());
      Settle(entries);
      return Outcome::kSettled;
    }
    failed_ += entries.size();
    NoteFailure(response.ok()
                    ? "HTTP " + std::to_string(response->status) + ": " + FirstLine(response->body)
                    : response.error());
    if (!SleepUnlessStopped(backoff)) return Outcome::kAbandoned;
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

size_t RemoteWriter::SplitPoint(std::span<const Entry> entries) {
  auto boundary = [&](size_t i) {
    return entries[i].batch != entries[i - 1].batch ||
           entries[i].timestamp_ms != entries[i - 1].timestamp_ms;
  };
  size_t middle = entries.size() / 2;
  for (size_t distance = 0; distance <= middle; ++distance) {
    if (middle + distance < entries.size() && middle + distance > 0 &&
        boundary(middle + distance)) {
      return middle + distance;
    }
    if (middle > distance && boundary(middle - distance)) return middle - distance;
  }
  return 0;
}

void RemoteWriter::Settle(std::span<const Entry> entries) {
  std::lock_guard lock(ack_mutex_);
  std::vector<std::string> hosts;  // copies: acknowledging frees the batches
  for (const Entry& entry : entries) {
    if (--entry.batch->remaining == 0 &&
        std::find(hosts.begin(), hosts.end(), entry.batch->host) == hosts.end()) {
      hosts.push_back(entry.batch->host);
    }
  }
  for (const std::string& host : hosts) AcknowledgeSettled(host);
  pending_ -= entries.size();
  settled_.notify_all();
}

void RemoteWriter::AcknowledgeSettled(const std::string& host) {
  auto found = batches_.find(host);
  if (found == batches_.end()) return;
  auto& queue = found->second;
  while (!queue.empty() && queue.front()->remaining == 0) {
    if (options_.on_delivered) options_.on_delivered(host, queue.front()->position);
    queue.pop_front();
  }
  if (queue.empty()) batches_.erase(found);
}

void RemoteWriter::NoteRefusal(long status, const std::string& body, size_t samples) {
  std::lock_guard lock(burst_mutex_);
  if (refused_in_burst_++ == 0 && options_.log) {
    options_.log("remote-write " + options_.url + " refused " + std::to_string(samples) +
                 " samples, dropped: HTTP " + std::to_string(status) + ": " + FirstLine(body));
  }
}

void RemoteWriter::NoteFailure(const std::string& what) {
  std::lock_guard lock(burst_mutex_);
  if (failed_in_burst_++ == 0 && options_.log) {
    options_.log("remote-write " + options_.url + " failed, retrying with backoff: " + what);
  }
}

void RemoteWriter::NoteSuccess() {
  std::lock_guard lock(burst_mutex_);
  if (options_.log && refused_in_burst_ > 1) {
    options_.log("remote-write " + options_.url + ": " + std::to_string(refused_in_burst_ - 1) +
                 " more requests were refused and dropped before this one was accepted");
  }
  if (options_.log && failed_in_burst_ > 0) {
    options_.log("remote-write " + options_.url + " accepts again after " +
                 std::to_string(failed_in_burst_) + " failed attempts");
  }
  refused_in_burst_ = 0;
  failed_in_burst_ = 0;
}

bool RemoteWriter::SleepUnlessStopped(std::chrono::milliseconds delay) {
  std::unique_lock lock(stop_mutex_);
  return !stop_wake_.wait_for(lock, delay, [&] { return stopping_.load(); });
}

}  // namespace perfhive
