// The sampler on real Asio timers with a source the test controls: a slow snapshot makes the
// ticks it overran count as skipped and the next ones keep their slots (never bunched); object
// names are resolved through the source's title database. With a worker pool, a host whose
// reads hang keeps neither the io thread nor another host from their schedules. Replan (a
// central plan) swaps the queries while timers and reads are pending.

#include "agent/sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

#include "tests/agent/agent_test_util.h"

namespace perfhive {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;
using testing::TestOwner;

// Records when and for what it was asked; the first snapshot takes `first_delay`.
class ScriptedSource : public SnapshotSource {
 public:
  explicit ScriptedSource(milliseconds first_delay) : first_delay_(first_delay) {}
  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override {
    if (times_.empty()) std::this_thread::sleep_for(first_delay_);
    times_.push_back(std::chrono::steady_clock::now());
    queries_.emplace_back(query);
    return std::vector<uint8_t>{1, 2, 3};
  }
  Result<std::vector<TitleBytes>> ReadTitles() override {
    return std::vector<TitleBytes>{Titles()};
  }
  Result<std::optional<std::vector<TitleBytes>>> ReadTitlesIfChanged() override {
    if (titles_read_) return std::optional<std::vector<TitleBytes>>();
    titles_read_ = true;
    return std::optional<std::vector<TitleBytes>>({Titles()});
  }
  std::vector<std::string> TakeWarnings() override { return {}; }
  Result<HostIdentity> Identity() override {
    return HostIdentity{.name = "h", .os = "", .os_version = ""};
  }

  static TitleBytes Titles() {
    std::vector<uint8_t> counters;
    for (char c : std::string("238\0Processor\0", 14)) {
      counters.push_back(static_cast<uint8_t>(c));
      counters.push_back(0);
    }
    counters.push_back(0);
    counters.push_back(0);
    return TitleBytes{.language = "009", .counters = counters, .helps = {}};
  }

  std::vector<std::chrono::steady_clock::time_point> times_;
  std::vector<std::string> queries_;

 private:
  milliseconds first_delay_;
  bool titles_read_ = false;
};

class SamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spool_ = std::move(Spool::Open(env_, dir_.path(), 1 << 30, TestOwner(), log_)).value();
    outbox_ = std::make_unique<Outbox>(*spool_, spool_->TakeRecovered(), 64 << 20, log_);
    ShipperOptions options;
    options.instance_id = "abc";
    shipper_ = std::make_unique<Shipper>(options, *outbox_, *spool_, log_);  // never started
  }
  // Runs the sampler until the source has taken `count` snapshots.
  void Run(ScriptedSource& source, const std::vector<QuerySchedule>& queries, size_t count,
           milliseconds interval) {
    sampler_ = std::make_unique<Sampler>(io_, source, *shipper_, *outbox_, log_, TestOwner(), "abc",
                                         queries, interval);
    asio::steady_timer check(io_);
    std::function<void()> poll = [&] {
      check.expires_after(milliseconds(5));
      check.async_wait([&](const std::error_code&) {
        if (source.times_.size() >= count) {
          sampler_->Stop();
          return;
        }
        poll();
      });
    };
    sampler_->Start();
    poll();
    io_.run();
  }

  Env& env_ = Env::Default();
  std::ostringstream log_text_;
  Logger log_{log_text_, env_};
  TempDir dir_;
  std::unique_ptr<Spool> spool_;
  std::unique_ptr<Outbox> outbox_;
  std::unique_ptr<Shipper> shipper_;
  asio::io_context io_;  // outlives the sampler's timers
  std::unique_ptr<Sampler> sampler_;
};

TEST_F(SamplerTest, OverrunTicksAreSkippedNotBunched) {
  ScriptedSource source(milliseconds(110));  // overruns five 20 ms slots
  QuerySchedule global;
  global.name = "Global";
  Run(source, {global}, 4, milliseconds(20));

  EXPECT_GE(sampler_->stats().missed_ticks, 4u);
  ASSERT_GE(source.times_.size(), 4u);
  for (size_t i = 2; i < source.times_.size(); ++i) {
    // Bunched ticks would come back to back; ticks in their own slots are about a slot apart
    // (each late by its own scheduling delay, so not exactly).
    EXPECT_GE(source.times_[i] - source.times_[i - 1], milliseconds(10)) << i;
  }
  EXPECT_EQ(outbox_->size(), source.times_.size());  // sequence numbers from 1, each pushed
  EXPECT_NE(log_text_.str().find("fell behind its schedule"), std::string::npos);
}

TEST_F(SamplerTest, ObjectNamesAreAskedForByTheirIndexesInTheHostsTitles) {
  ScriptedSource source(milliseconds(0));
  QuerySchedule processor;
  processor.objects = {"processor"};
  Run(source, {processor}, 2, milliseconds(10));
  ASSERT_GE(source.queries_.size(), 2u);
  EXPECT_EQ(source.queries_[0], "238");
  EXPECT_EQ(source.queries_[1], "238");
}

// Reads on a worker thread; each snapshot takes `delay`, until `Release`.
class BlockingSource : public ScriptedSource {
 public:
  explicit BlockingSource(milliseconds delay) : ScriptedSource(milliseconds(0)), delay_(delay) {}
  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view) override {
    std::this_thread::sleep_for(delay_);
    ++taken_;
    return std::vector<uint8_t>{4, 5, 6};
  }
  std::atomic<int> taken_{0};

 private:
  milliseconds delay_;
};

TEST_F(SamplerTest, AHostThatHangsDelaysNoOtherHost) {
  asio::thread_pool workers(2);
  BlockingSource hung(milliseconds(600));
  BlockingSource quick(milliseconds(0));
  QuerySchedule global;
  global.name = "Global";
  Sampler hung_sampler(io_, hung, *shipper_, *outbox_, log_, TestOwner("hung"), "hung", {global},
                       milliseconds(20), &workers);
  Sampler quick_sampler(io_, quick, *shipper_, *outbox_, log_, TestOwner("quick"), "quick",
                        {global}, milliseconds(20), &workers);
  auto started = std::chrono::steady_clock::now();
  std::chrono::steady_clock::duration quick_done{};
  asio::steady_timer check(io_);
  std::function<void()> poll = [&] {
    check.expires_after(milliseconds(5));
    check.async_wait([&](const std::error_code&) {
      if (quick_sampler.stats().taken >= 10 &&
          quick_done == std::chrono::steady_clock::duration{}) {
        quick_done = std::chrono::steady_clock::now() - started;
      }
      if (hung_sampler.stats().taken >= 1) {
        hung_sampler.Stop();
        quick_sampler.Stop();
        return;
      }
      poll();
    });
  };
  hung_sampler.Start();
  quick_sampler.Start();
  poll();
  io_.run();
  workers.join();

  // Ten 20 ms slots of the quick host passed while the hung host's first read was still running.
  EXPECT_GT(quick_done, std::chrono::steady_clock::duration{});
  EXPECT_LT(quick_done, milliseconds(600));
  EXPECT_EQ(hung.taken_, 1);
  // The hung host's slots during its read were skipped, not queued behind it.
  EXPECT_GE(hung_sampler.stats().missed_ticks, 20u);
  EXPECT_EQ(hung_sampler.stats().taken, 1u);
  EXPECT_GE(quick_sampler.stats().taken, 10u);
}

// Proves: Replan stops the old queries and starts the new ones at once, in the same sampler;
// a read in flight when the plan changes finishes and its snapshot is kept.
TEST_F(SamplerTest, ReplanSwapsTheQueriesWhileAReadIsInFlight) {
  asio::thread_pool workers(1);
  BlockingSource source(milliseconds(80));
  QuerySchedule global;
  global.name = "Global";
  global.every = milliseconds(50);  // would come back often, were it not stopped
  QuerySchedule processor;
  processor.objects = {"Processor"};
  Sampler sampler(io_, source, *shipper_, *outbox_, log_, TestOwner(), "abc", {global},
                  milliseconds(1000), &workers);
  asio::steady_timer replan(io_);
  asio::steady_timer stop(io_);
  sampler.Start();
  // The first Global read runs until 80 ms; the plan arrives at 40 ms.
  replan.expires_after(milliseconds(40));
  replan.async_wait([&](const std::error_code&) {
    sampler.Replan({processor}, milliseconds(30));
    stop.expires_after(milliseconds(400));
    stop.async_wait([&](const std::error_code&) { sampler.Stop(); });
  });
  io_.run();
  workers.join();

  std::vector<std::string> queries;
  outbox_->SetConnected(true);
  const std::atomic<bool> never_interrupted{false};
  while (outbox_->size() > 0) {
    std::shared_ptr<const SnapshotRecord> record = outbox_->NextToSend(1000, never_interrupted);
    if (record == nullptr) break;
    queries.push_back(record->query);
    outbox_->Remove(record->instance_id, record->sequence);
  }
  // The Global read in flight is kept; then only the planned query, every 30 ms (about 3 in
  // 400 ms, as each read takes 80 ms and overrun slots are skipped).
  ASSERT_GE(queries.size(), 3u) << log_text_.str();
  EXPECT_EQ(queries[0], "Global");
  for (size_t i = 1; i < queries.size(); ++i) EXPECT_EQ(queries[i], "238") << i;
  EXPECT_NE(log_text_.str().find("sampling Processor every 30ms"), std::string::npos);
}

}  // namespace
}  // namespace perfhive
