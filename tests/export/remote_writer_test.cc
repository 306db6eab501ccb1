// The sender's policy against a stand-in receiver on 127.0.0.1 that answers scripted status
// codes: batching, sharding in order, retries with backoff on network errors, 429 and 5xx, drops
// on other 4xx and on "too old" 5xx, splitting a refused request, and acknowledgements per host.

#include "export/remote_writer.h"

#include <gtest/gtest.h>
#include <snappy.h>

#include <map>
#include <mutex>

#include "export/http_server.h"
#include "export/remote_write.pb.h"
#include "perfdata/winperf.h"

namespace perfhive {
namespace {

using std::chrono::milliseconds;

constexpr int64_t kT0 = 1700000000000;

// A receiver whose answer to the n-th request (0-based) the test scripts; records every request.
class ScriptedReceiver {
 public:
  using Script = std::function<HttpReply(int call, const prometheus::WriteRequest& request)>;

  explicit ScriptedReceiver(Script script) : script_(std::move(script)) {
    HttpServerOptions options;
    options.max_body_bytes = 16 << 20;
    auto server = HttpServer::Start(
        "127.0.0.1", 0, [this](const HttpRequest& request) { return Handle(request); }, options);
    EXPECT_TRUE(server.ok()) << server.error();
    server_ = std::move(server).value();
  }

  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(server_->port()) + "/api/v1/write";
  }
  std::vector<prometheus::WriteRequest> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  std::vector<int> statuses() {
    std::lock_guard lock(mutex_);
    return statuses_;
  }
  // Per request, the remote-write specification's headers.
  std::vector<std::map<std::string, std::string>> headers() {
    std::lock_guard lock(mutex_);
    return headers_;
  }

 private:
  HttpReply Handle(const HttpRequest& http) {
    std::string serialized;
    prometheus::WriteRequest request;
    if (!snappy::Uncompress(http.body.data(), http.body.size(), &serialized) ||
        !request.ParseFromString(serialized)) {
      return {400, "text/plain", "undecodable body\n", {}};
    }
    std::lock_guard lock(mutex_);
    HttpReply reply = script_(static_cast<int>(requests_.size()), request);
    requests_.push_back(request);
    statuses_.push_back(reply.status);
    std::map<std::string, std::string>& headers = headers_.emplace_back();
    for (const char* name :
         {"Content-Encoding", "Content-Type", "X-Prometheus-Remote-Write-Version"}) {
      headers[name] = http.Header(name);
    }
    return reply;
  }

  Script script_;
  std::mutex mutex_;
  std::vector<prometheus::WriteRequest> requests_;
  std::vector<int> statuses_;
  std::vector<std::map<std::string, std::string>> headers_;
  std::unique_ptr<HttpServer> server_;
};

HttpReply Accept() { return {204, "text/plain", "", {}}; }

ComputedSample Sample(const std::string& host, const std::string& instance, int64_t t,
                      double value) {
  ComputedSample sample;
  sample.host = host;
  sample.object_english = "Process";
  sample.counter_english = "Handle Count";
  sample.instance = instance;
  sample.counter_type = winperf::kCounterRawcount;
  sample.timestamp_ms = t;
  sample.value = value;
  return sample;
}

size_t SampleCount(const std::vector<prometheus::WriteRequest>& requests) {
  size_t count = 0;
  for (const auto& request : requests) {
    for (const auto& series : request.timeseries()) count += series.samples_size();
  }
  return count;
}

std::string LabelValue(const prometheus::TimeSeries& series, const std::string& name) {
  for (const auto& label : series.labels()) {
    if (label.name() == name) return label.value();
  }
  return "";
}

struct Acks {
  std::mutex mutex;
  std::map<std::string, std::vector<uint64_t>> positions;
  std::vector<std::string> log;
};

RemoteWriterOptions Options(const std::string& url, Acks& acks) {
  RemoteWriterOptions options;
  options.url = url;
  options.min_backoff = milliseconds(5);
  options.max_backoff = milliseconds(40);
  options.http.request_timeout = milliseconds(5000);
  options.on_delivered = [&acks](const std::string& host, uint64_t position) {
    std::lock_guard lock(acks.mutex);
    acks.positions[host].push_back(position);
  };
  options.log = [&acks](const std::string& line) {
    std::lock_guard lock(acks.mutex);
    acks.log.push_back(line);
  };
  return options;
}

TEST(RemoteWriterTest, DeliversInBatchesEachSeriesInOrderAndAcknowledgesPerHost) {
  ScriptedReceiver receiver([](int, const prometheus::WriteRequest&) { return Accept(); });
  Acks acks;
  RemoteWriterOptions options = Options(receiver.url(), acks);
  options.shards = 3;
  options.max_samples_per_request = 7;
  RemoteWriter writer(options);
  // 2 hosts × 10 instances × 5 times, each time one batch.
  for (int step = 0; step < 5; ++step) {
    for (const std::string host : {"a", "b"}) {
      std::vector<ComputedSample> batch;
      for (int i = 0; i < 10; ++i) {
        batch.push_back(Sample(host, "p" + std::to_string(i), kT0 + step * 1000, step * 100 + i));
      }
      ASSERT_TRUE(writer.Offer(host, batch, 100 + step));
    }
  }
  ASSERT_TRUE(writer.Flush(milliseconds(20000)));
  std::vector<prometheus::WriteRequest> requests = receiver.requests();
  EXPECT_EQ(SampleCount(requests), 100u);
  std::map<std::string, int64_t> newest;  // per series: timestamps only move forward
  for (const auto& request : requests) {
    size_t in_request = 0;
    for (const auto& series : request.timeseries()) {
      EXPECT_EQ(series.labels(0).name(), "__name__");
      EXPECT_EQ(series.labels(0).value(), "pdh_process_handles");
      std::string key = LabelValue(series, "host") + "/" + LabelValue(series, "instance");
      for (const auto& sample : series.samples()) {
        EXPECT_GT(sample.timestamp(), newest[key]) << key;
        newest[key] = sample.timestamp();
        // value = step * 100 + instance number, as offered
        int step = static_cast<int>((sample.timestamp() - kT0) / 1000);
        EXPECT_EQ(sample.value(), step * 100 + std::stoi(LabelValue(series, "instance").substr(1)));
        ++in_request;
      }
    }
    EXPECT_LE(in_request, 7u);
  }
  EXPECT_EQ(newest.size(), 20u);
  std::lock_guard lock(acks.mutex);
  EXPECT_EQ(acks.positions["a"].back(), 104u);
  EXPECT_EQ(acks.positions["b"].back(), 104u);
  EXPECT_TRUE(std::is_sorted(acks.positions["a"].begin(), acks.positions["a"].end()));
  RemoteWriterStats stats = writer.stats();
  EXPECT_EQ(stats.sent, 100u);
  EXPECT_EQ(stats.failed + stats.dropped + stats.retried + stats.pending, 0u);
  EXPECT_EQ(stats.newest_sent_ms, kT0 + 4000);
  EXPECT_EQ(stats.lag_ms(), 0);
  // The spec's headers.
  std::map<std::string, std::string> headers = receiver.headers().front();
  EXPECT_EQ(headers["Content-Encoding"], "snappy");
  EXPECT_EQ(headers["Content-Type"], "application/x-protobuf");
  EXPECT_EQ(headers["X-Prometheus-Remote-Write-Version"], "0.1.0");
}

TEST(RemoteWriterTest, RetriesServerErrorsAndTooManyRequestsWithTheSameBody) {
  ScriptedReceiver receiver([](int call, const prometheus::WriteRequest&) -> HttpReply {
    if (call == 0) return {500, "text/plain", "internal\n", {}};
    if (call == 1) return {503, "text/plain", "busy\n", {}};
    if (call == 2) return {429, "text/plain", "slow down\n", {}};
    return Accept();
  });
  Acks acks;
  RemoteWriterOptions options = Options(receiver.url(), acks);
  options.shards = 1;
  RemoteWriter writer(options);
  std::vector<ComputedSample> batch = {Sample("h", "x", kT0, 1), Sample("h", "y", kT0, 2)};
  ASSERT_TRUE(writer.Offer("h", batch, 7));
  ASSERT_TRUE(writer.Flush(milliseconds(20000)));
  EXPECT_EQ(receiver.statuses(), (std::vector<int>{500, 503, 429, 204}));
  std::vector<prometheus::WriteRequest> requests = receiver.requests();
  for (const auto& request : requests) {
    EXPECT_EQ(request.SerializeAsString(), requests.front().SerializeAsString());
  }
  RemoteWriterStats stats = writer.stats();
  EXPECT_EQ(stats.sent, 2u);
  EXPECT_EQ(stats.failed, 6u);
  EXPECT_EQ(stats.retried, 6u);
  EXPECT_EQ(stats.dropped, 0u);
  std::lock_guard lock(acks.mutex);
  EXPECT_EQ(acks.positions["h"], (std::vector<uint64_t>{7}));
  ASSERT_EQ(acks.log.size(), 2u);  // the burst's first failure, and its end
  EXPECT_NE(acks.log[0].find("HTTP 500: internal"), std::string::npos) << acks.log[0];
  EXPECT_NE(acks.log[1].find("after 3 failed attempts"), std::string::npos) << acks.log[1];
}

TEST(RemoteWriterTest, ClientErrorsAndTooOldSamplesAreDroppedNotRetried) {
  ScriptedReceiver receiver([](int call, const prometheus::WriteRequest&) -> HttpReply {
    if (call == 0) return {400, "text/plain", "out of order sample\n", {}};
    if (call == 1) return {404, "text/plain", "no such endpoint\n", {}};
    if (call == 2) return {500, "text/plain", "too old sample\n", {}};
    return Accept();
  });
  Acks acks;
  RemoteWriterOptions options = Options(receiver.url(), acks);
  options.shards = 1;
  RemoteWriter writer(options);
  for (uint64_t position = 1; position <= 4; ++position) {
    ASSERT_TRUE(writer.Offer("h", std::vector{Sample("h", "x", kT0 + position, 1)}, position));
    ASSERT_TRUE(writer.Flush(milliseconds(20000)));
  }
  EXPECT_EQ(receiver.statuses(), (std::vector<int>{400, 404, 500, 204}));
  RemoteWriterStats stats = writer.stats();
  EXPECT_EQ(stats.dropped, 3u);
  EXPECT_EQ(stats.sent, 1u);
  EXPECT_EQ(stats.failed + stats.retried, 0u);
  std::lock_guard lock(acks.mutex);
  // Dropped batches are settled: the position moves on, nothing is resent forever.
  EXPECT_EQ(acks.positions["h"], (std::vector<uint64_t>{1, 2, 3, 4}));
  // One line for the burst's first refusal, one summing up the burst when it ends.
  ASSERT_EQ(acks.log.size(), 2u);
  EXPECT_NE(acks.log[0].find("HTTP 400: out of order sample"), std::string::npos) << acks.log[0];
  EXPECT_NE(acks.log[1].find("2 more requests were refused"), std::string::npos) << acks.log[1];
}

TEST(RemoteWriterTest, ARefusedRequestIsSplitSoOnlyTheBadTimesAreDropped) {
  // As Prometheus does, one sample already stored (time kT0) refuses the whole request.
  ScriptedReceiver receiver([](int, const prometheus::WriteRequest& request) -> HttpReply {
    for (const auto& series : request.timeseries()) {
      for (const auto& sample : series.samples()) {
        if (sample.timestamp() == kT0) return {400, "text/plain", "out of order sample\n", {}};
      }
    }
    return Accept();
  });
  Acks acks;
  RemoteWriterOptions options = Options(receiver.url(), acks);
  options.shards = 1;
  RemoteWriter writer(options);
  // Hold the shard until all three batches are queued, so they travel in one request.
  std::vector<ComputedSample> old_batch, new_batch, newer_batch;
  for (int i = 0; i < 4; ++i) {
    old_batch.push_back(Sample("h", "p" + std::to_string(i), kT0, i));
    new_batch.push_back(Sample("h", "p" + std::to_string(i), kT0 + 1000, 10 + i));
    newer_batch.push_back(Sample("h", "p" + std::to_string(i), kT0 + 2000, 20 + i));
  }
  std::vector<ComputedSample> all = old_batch;
  all.insert(all.end(), new_batch.begin(), new_batch.end());
  all.insert(all.end(), newer_batch.begin(), newer_batch.end());
  ASSERT_TRUE(writer.Offer("h", all, 3));
  ASSERT_TRUE(writer.Flush(milliseconds(20000)));
  std::vector<prometheus::WriteRequest> requests = receiver.requests();
  std::vector<int> statuses = receiver.statuses();
  size_t accepted = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (statuses[i] == 204) accepted += SampleCount({requests[i]});
  }
  EXPECT_EQ(accepted, 8u);
  RemoteWriterStats stats = writer.stats();
  EXPECT_EQ(stats.sent, 8u);
  EXPECT_EQ(stats.dropped, 4u);
  std::lock_guard lock(acks.mutex);
  EXPECT_EQ(acks.positions["h"], (std::vector<uint64_t>{3}));
}

TEST(RemoteWriterTest, UnreachableReceiverKeepsTheBatchUnacknowledgedUntilStopped) {
  // A port that was free a moment ago: nothing listens there.
  uint16_t port;
  {
    auto probe = HttpServer::Start("127.0.0.1", 0, [](const HttpRequest&) { return Accept(); });
    ASSERT_TRUE(probe.ok());
    port = (*probe)->port();
  }
  Acks acks;
  RemoteWriterOptions options =
      Options("http://127.0.0.1:" + std::to_string(port) + "/api/v1/write", acks);
  options.shards = 2;
  auto writer = std::make_unique<RemoteWriter>(options);
  ASSERT_TRUE(writer->Offer("h", std::vector{Sample("h", "x", kT0, 1)}, 1));
  EXPECT_FALSE(writer->Flush(milliseconds(300)));
  RemoteWriterStats stats = writer->stats();
  EXPECT_GE(stats.failed, 2u);
  EXPECT_EQ(stats.sent, 0u);
  EXPECT_EQ(stats.pending, 1u);
  EXPECT_EQ(stats.newest_offered_ms, kT0);
  EXPECT_EQ(stats.lag_ms(), kT0);
  writer.reset();  // stops while retrying
  std::lock_guard lock(acks.mutex);
  EXPECT_TRUE(acks.positions.empty());
  ASSERT_FALSE(acks.log.empty());
  EXPECT_NE(acks.log[0].find("failed, retrying"), std::string::npos) << acks.log[0];
}

TEST(RemoteWriterTest, OfferRefusesABatchBeyondThePendingLimit) {
  uint16_t port;
  {
    auto probe = HttpServer::Start("127.0.0.1", 0, [](const HttpRequest&) { return Accept(); });
    ASSERT_TRUE(probe.ok());
    port = (*probe)->port();
  }
  Acks acks;
  RemoteWriterOptions options =
      Options("http://127.0.0.1:" + std::to_string(port) + "/api/v1/write", acks);
  options.max_pending_samples = 3;
  RemoteWriter writer(options);
  std::vector<ComputedSample> two = {Sample("h", "x", kT0, 1), Sample("h", "y", kT0, 2)};
  EXPECT_TRUE(writer.Offer("h", two, 1));
  EXPECT_FALSE(writer.Offer("h", two, 2));
  EXPECT_EQ(writer.stats().pending, 2u);
  // An empty batch takes no room; it is acknowledged once the batch before it is settled.
  EXPECT_TRUE(writer.Offer("h", {}, 3));
  std::lock_guard lock(acks.mutex);
  EXPECT_TRUE(acks.positions.empty());
}

TEST(RemoteWriterTest, AnEmptyBatchIsAcknowledgedAtOnceWhenNothingIsBeforeIt) {
  ScriptedReceiver receiver([](int, const prometheus::WriteRequest&) { return Accept(); });
  Acks acks;
  RemoteWriter writer(Options(receiver.url(), acks));
  EXPECT_TRUE(writer.Offer("quiet", {}, 9));
  std::lock_guard lock(acks.mutex);
  EXPECT_EQ(acks.positions["quiet"], (std::vector<uint64_t>{9}));
  EXPECT_TRUE(receiver.requests().empty());
}

}  // namespace
}  // namespace perfhive
