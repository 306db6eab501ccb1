// The sampler on real Asio timers with a source the test controls: a slow snapshot makes the
// ticks it overran count as skipped and the next ones keep their slots (never bunched); object
// names are resolved through the source's title database. With a worker pool, a host whose
// reads hang keeps neither the io thread nor another host from their schedules. Replan (a
// central plan) swaps the queries while timers and reads are pending.

#include "agent/sampler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
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
  Result<std::vector<DisabledProvider>> DisabledProviders() override { return disabled; }

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
  std::vector<DisabledProvider> disabled;

 private:
  milliseconds first_delay_;
  bool titles_read_ = false;
};

class SamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spool_ = std::move(Spool::Open(env_, dir_.path(), 1 << 30, TestOwner(), log_)).value();
    outbox_ = std::make_unique<Outbox>(*spool_, spool_->TakeRecovered(), 64 << 20, log_);
  }
  // Runs the sampler until the source has taken `count` snapshots.
  void Run(ScriptedSource& source, const std::vector<QuerySchedule>& queries, size_t count,
           milliseconds interval) {
    sampler_ = std::make_unique<Sampler>(io_, source, *outbox_, log_, TestOwner(), "abc", queries,
                                         interval);
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

// The pipeline runs one way: what the sampler takes besides snapshots (the title databases, the
// host's disabled providers, what it lost) goes to the outbox, which the shipper reads.
TEST_F(SamplerTest, TitlesAndReportsGoToTheOutbox) {
  ScriptedSource source(milliseconds(0));
  source.disabled = {DisabledProvider{
      .service = "PerfOS", .disable_value = 1, .library = "perfos.dll", .object_indexes = {238}}};
  QuerySchedule global;
  global.name = "Global";
  Run(source, {global}, 2, milliseconds(10));

  ASSERT_EQ(outbox_->titles_in_force().size(), 1u);
  EXPECT_TRUE(outbox_->FindTitles(outbox_->titles_in_force()[0].sha256).ok());
  outbox_->SetConnected(true);
  const std::atomic<bool> never_interrupted{false};
  Outbox::Outgoing first = outbox_->NextToSend(16, never_interrupted);
  EXPECT_EQ(first.snapshot, nullptr);
  bool providers = false, losses = false;
  for (const v1::AgentMessage& report : first.reports) {
    if (report.has_providers()) {
      providers = true;
      ASSERT_EQ(report.providers().disabled_size(), 1);
      EXPECT_EQ(report.providers().disabled(0).service(), "PerfOS");
      EXPECT_EQ(report.providers().disabled(0).object_indexes(0), 238u);
    }
    losses |= report.has_losses();
  }
  EXPECT_TRUE(providers);
  EXPECT_TRUE(losses);
  Outbox::Outgoing snapshot = outbox_->NextToSend(16, never_interrupted);
  ASSERT_NE(snapshot.snapshot, nullptr);
  EXPECT_EQ(snapshot.snapshot->titles, outbox_->titles_in_force());
}

// Reads on a worker thread. While held (Hold), a read waits until Release: a host that hangs for
// as long as the test needs, however slow the machine, with no clock in the test.
class GatedSource : public ScriptedSource {
 public:
  GatedSource() : ScriptedSource(milliseconds(0)) {}
  Result<std::vector<uint8_t>> TakeSnapshot(std::string_view query) override {
    {
      std::unique_lock lock(mutex_);
      ++waiting_;
      released_.wait(lock, [&] { return !held_ || passes_ > 0; });
      if (held_) --passes_;
      --waiting_;
      queries_.emplace_back(query);
    }
    ++taken_;
    return std::vector<uint8_t>{4, 5, 6};
  }
  void Hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void Release() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    released_.notify_all();
  }
  // Lets one read through and holds the next ones.
  void ReleaseOne() {
    {
      std::lock_guard lock(mutex_);
      ++passes_;
    }
    released_.notify_all();
  }
  // Whether a read is waiting at the gate.
  bool waiting() {
    std::lock_guard lock(mutex_);
    return waiting_ > 0;
  }
  std::atomic<int> taken_{0};

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  bool held_ = false;
  int passes_ = 0;  // reads let through while held
  int waiting_ = 0;
};

// Polls `done` every 5 ms on the io thread until it returns true; a test whose condition never
// comes fails its deadline rather than hanging.
void PollUntil(asio::io_context& io, asio::steady_timer& timer, std::function<bool()> done,
               std::chrono::steady_clock::time_point deadline) {
  timer.expires_after(milliseconds(5));
  timer.async_wait([&io, &timer, done = std::move(done), deadline](const std::error_code&) {
    if (done()) return;
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "the condition did not come within the deadline";
      io.stop();
      return;
    }
    PollUntil(io, timer, done, deadline);
  });
}

// Regression: this test once gave the hung host a 600 ms read and counted the other host's reads
// by the clock; a machine that stalled for half a second (CI, two tests at once) failed it. And
// it once opened the gate for good, so that on a loaded machine the hung host's next tick read
// again before the test stopped it (two reads counted): the gate now lets one read through.
TEST_F(SamplerTest, AHostThatHangsDelaysNoOtherHost) {
  asio::thread_pool workers(2);
  GatedSource hung;
  hung.Hold();
  GatedSource quick;
  QuerySchedule global;
  global.name = "Global";
  Sampler hung_sampler(io_, hung, *outbox_, log_, TestOwner("hung"), "hung", {global},
                       milliseconds(20), &workers);
  Sampler quick_sampler(io_, quick, *outbox_, log_, TestOwner("quick"), "quick", {global},
                        milliseconds(20), &workers);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  asio::steady_timer check(io_);
  bool quick_went_on_while_hung = false;
  bool released = false;
  int hung_reads = 0;  // as the test stopped the samplers
  SamplerStats hung_stats;
  hung_sampler.Start();
  quick_sampler.Start();
  PollUntil(
      io_, check,
      [&] {
        // Ten reads of the quick host while the hung host's first read waits at its gate.
        if (!released && quick_sampler.stats().taken >= 10) {
          quick_went_on_while_hung = hung.taken_ == 0 && hung.waiting();
          released = true;
          hung.ReleaseOne();
        }
        if (released && hung_sampler.stats().taken >= 1) {
          hung_sampler.Stop();
          quick_sampler.Stop();
          hung_reads = hung.taken_;
          hung_stats = hung_sampler.stats();
          return true;
        }
        return false;
      },
      deadline);
  io_.run();
  hung.Release();  // a read the next tick began, held at the gate, ends
  workers.join();

  EXPECT_TRUE(quick_went_on_while_hung);
  EXPECT_EQ(hung_reads, 1);
  // The hung host's slots during its read (at least the quick host's ten) were skipped, not
  // queued behind it: one read, then none bunched.
  EXPECT_GE(hung_stats.missed_ticks, 5u);
  EXPECT_EQ(hung_stats.taken, 1u);
  EXPECT_GE(quick_sampler.stats().taken, 10u);
}

// Proves: Replan stops the old queries and starts the new ones at once, in the same sampler;
// a read in flight when the plan changes finishes and its snapshot is kept.
// Regression: this test once timed the read (80 ms), the plan (at 40 ms) and the stop (400 ms
// later); a machine that stalled for half a second left one snapshot where it counted three.
TEST_F(SamplerTest, ReplanSwapsTheQueriesWhileAReadIsInFlight) {
  asio::thread_pool workers(1);
  GatedSource source;
  source.Hold();
  QuerySchedule global;
  global.name = "Global";
  global.every = milliseconds(50);  // would come back often, were it not stopped
  QuerySchedule processor;
  processor.objects = {"Processor"};
  Sampler sampler(io_, source, *outbox_, log_, TestOwner(), "abc", {global}, milliseconds(1000),
                  &workers);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  asio::steady_timer check(io_);
  bool replanned = false;
  sampler.Start();
  PollUntil(
      io_, check,
      [&] {
        // The plan arrives while the first Global read waits at its gate.
        if (!replanned && source.waiting()) {
          sampler.Replan({processor}, milliseconds(30));
          replanned = true;
          source.Release();
        }
        if (replanned && sampler.stats().taken >= 4) {
          sampler.Stop();
          return true;
        }
        return false;
      },
      deadline);
  io_.run();
  workers.join();

  std::vector<std::string> queries;
  outbox_->SetConnected(true);
  const std::atomic<bool> never_interrupted{false};
  while (outbox_->size() > 0) {
    std::shared_ptr<const SnapshotRecord> record =
        outbox_->NextToSend(1000, never_interrupted).snapshot;
    if (record == nullptr) continue;  // reports for the server go first
    queries.push_back(record->query);
    outbox_->Remove(record->instance_id, record->sequence);
  }
  // The Global read in flight is kept; then only the planned query.
  ASSERT_GE(queries.size(), 4u) << log_text_.str();
  EXPECT_EQ(queries[0], "Global");
  for (size_t i = 1; i < queries.size(); ++i) EXPECT_EQ(queries[i], "238") << i;
  EXPECT_NE(log_text_.str().find("sampling Processor every 30ms"), std::string::npos);
}

}  // namespace
}  // namespace perfhive
