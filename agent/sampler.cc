#include "agent/sampler.h"

#include "agent/server_reports.h"
#include "config/duration.h"
#include "port/env.h"
#include "query/inventory_history.h"
#include "sources/object_names_query.h"

namespace perfhive {
namespace {

// A sweep times objects for a tenth of a tick's interval, or this long when that is shorter.
constexpr std::chrono::milliseconds kSweepLeastBudget{20};

}  // namespace

Sampler::Sampler(asio::io_context& io, SnapshotSource& source, Outbox& outbox, Logger& log,
                 SnapshotOwner owner, std::string instance_id,
                 const std::vector<QuerySchedule>& queries, std::chrono::milliseconds interval,
                 asio::thread_pool* workers)
    : io_(io),
      workers_(workers),
      source_(source),
      outbox_(outbox),
      log_(log),
      owner_(std::move(owner)),
      instance_id_(std::move(instance_id)),
      started_unix_nanos_(UnixNanosNow()) {
  MakeSchedules(queries, interval);
}

void Sampler::MakeSchedules(const std::vector<QuerySchedule>& queries,
                            std::chrono::milliseconds interval) {
  schedules_.clear();
  for (const QuerySchedule& query : queries) {
    schedules_.push_back(std::make_shared<Schedule>(Schedule{
        .query = query,
        .label = QueryLabel(query),
        .resolved = query.name,
        .every = ScheduleInterval(query, interval),
        .timer = asio::steady_timer(io_),
        .due = {},
        .retired = false,
    }));
  }
}

void Sampler::Start() {
  // Before the first stream opens, so that its Hello names the database. A remote host is not
  // waited for: its first tick reads the database, and the shipper sends it before the first
  // snapshot that refers to it.
  if (workers_ == nullptr) {
    Result<std::optional<TitleSet>> changed = source_.ReadTitlesIfChanged();
    if (!changed.ok()) {
      log_.Warning("cannot read the title database: " + changed.error());
    } else if (changed->has_value()) {
      AdoptTitles(std::make_shared<const TitleSet>(std::move(**changed)));
    }
  }
  ArmAllNow();
}

void Sampler::ArmAllNow() {
  auto now = asio::steady_timer::clock_type::now();
  for (auto& schedule : schedules_) {
    log_.Info("sampling " + schedule->label + " every " + FormatDuration(schedule->every));
    schedule->due = now;
    Arm(schedule);
  }
}

void Sampler::Replan(const std::vector<QuerySchedule>& queries,
                     std::chrono::milliseconds interval) {
  for (auto& schedule : schedules_) {
    schedule->retired = true;
    schedule->timer.cancel();
  }
  MakeSchedules(queries, interval);
  if (!stopped_) ArmAllNow();
}

void Sampler::Stop() {
  stopped_ = true;
  for (auto& schedule : schedules_) schedule->timer.cancel();
}

void Sampler::Arm(const std::shared_ptr<Schedule>& schedule) {
  if (schedule->retired) return;
  schedule->timer.expires_at(schedule->due);
  schedule->timer.async_wait([this, schedule](const std::error_code& error) {
    if (error || stopped_ || schedule->retired) return;
    Tick(schedule);
  });
}

void Sampler::AdoptTitles(std::shared_ptr<const TitleSet> titles) {
  titles_ = std::move(titles);
  title_refs_ = outbox_.AdoptTitles(*titles_);
  for (const TitleRef& ref : title_refs_) {
    log_.Info("title database " + ref.language + " is " + ToHex(ref.sha256));
  }
  // Object names may have other indexes now.
  for (auto& schedule : schedules_) {
    if (!schedule->query.objects.empty()) schedule->resolved.clear();
  }
}

Sampler::Reading Sampler::Read(SnapshotSource& source, std::shared_ptr<const TitleSet> titles,
                               const QuerySchedule& query, std::string resolved,
                               bool check_providers, const std::vector<uint32_t>& to_time,
                               std::chrono::milliseconds every) {
  Reading reading;
  if (check_providers) reading.providers = source.DisabledProviders();
  Result<std::optional<TitleSet>> changed = source.ReadTitlesIfChanged();
  if (!changed.ok()) {
    reading.titles_error = changed.status();
  } else if (changed->has_value()) {
    titles = std::make_shared<const TitleSet>(std::move(**changed));
    reading.new_titles = titles;
    if (!query.objects.empty()) resolved.clear();
  }
  if (titles == nullptr) return reading;
  if (resolved.empty()) {
    Result<std::string> indexes = QueryForObjectNames(titles->front(), query.objects);
    if (!indexes.ok()) {
      reading.resolve_error = indexes.status();
      return reading;
    }
    resolved = std::move(indexes).value();
  }
  reading.query = resolved;
  reading.raw = source.TakeSnapshot(resolved);
  reading.warnings = source.TakeWarnings();
  if (!to_time.empty()) {
    reading.timed = ObjectSweep::Time(source, to_time, std::max(every / 10, kSweepLeastBudget));
  }
  return reading;
}

void Sampler::Tick(const std::shared_ptr<Schedule>& schedule) {
  if (reading_) {
    // The host has not answered the previous read yet: this slot is lost, not queued.
    ++stats_.missed_ticks;
    log_.Warning("sampling " + schedule->label + " fell behind its schedule; ticks skipped");
    Reschedule(schedule);
    return;
  }
  const bool check_providers = ProvidersDue();
  std::vector<uint32_t> to_time;
  if (!replaying_) to_time = sweep_.Due(ObjectSweep::Clock::now());
  if (workers_ == nullptr) {
    Finish(schedule, Read(source_, titles_, schedule->query, schedule->resolved, check_providers,
                          to_time, schedule->every));
    return;
  }
  reading_ = true;
  // The guard keeps io_ running until the result is back, even with nothing else to do.
  asio::post(*workers_, [this, schedule, titles = titles_, resolved = schedule->resolved,
                         check_providers, to_time = std::move(to_time),
                         work = asio::make_work_guard(io_)] {
    Reading reading =
        Read(source_, titles, schedule->query, resolved, check_providers, to_time, schedule->every);
    asio::post(io_, [this, schedule, reading = std::move(reading)]() mutable {
      reading_ = false;
      if (!stopped_) Finish(schedule, std::move(reading));
    });
  });
}

void Sampler::ReportFailure(const std::string& error) {
  ++stats_.failed;
  if (error == last_failure_) return;
  failing_ = true;
  last_failure_ = error;
  outbox_.Report(HealthReportMessage(error, UnixNanosNow()));
}

bool Sampler::ProvidersDue() {
  const auto now = std::chrono::steady_clock::now();
  if (now < providers_due_) return false;
  providers_due_ = now + std::chrono::hours(1);
  return true;
}

void Sampler::NoteProviders(Result<std::vector<DisabledProvider>> providers) {
  if (!providers.ok()) {
    // A remote host that refuses HKEY_LOCAL_MACHINE says so once, not every hour.
    if (providers.error() != providers_error_) {
      providers_error_ = providers.error();
      log_.Warning("cannot check for disabled performance counter providers: " + providers_error_);
    }
    return;
  }
  providers_error_.clear();
  if (providers_reported_ == *providers) return;
  for (const DisabledProvider& provider : *providers) {
    log_.Warning("the performance counter provider of service " + provider.service +
                 " is disabled (" + kDisablePerformanceCounters + " = " +
                 std::to_string(provider.disable_value) + " under " +
                 ProviderKeyPath(provider.service) + "): its objects are not collected");
  }
  outbox_.Report(ProvidersReportMessage(*providers));
  providers_reported_ = std::move(providers).value();
}

void Sampler::NoteSweep(const v1::ObjectTimings& sweep) {
  for (const v1::ObjectTiming& object : sweep.objects()) {
    const std::chrono::nanoseconds took(object.nanos());
    if (!object.error().empty()) {
      log_.Warning("object " + std::to_string(object.object_index()) +
                   " asked for alone failed: " + object.error());
    } else if (took >=
               query::SlowObjectThreshold(std::chrono::nanoseconds(sweep.interval_nanos()))) {
      log_.Warning("object " + std::to_string(object.object_index()) + " asked for alone took " +
                   FormatDuration(std::chrono::duration_cast<std::chrono::milliseconds>(took)) +
                   ": its provider is slow");
    }
  }
  outbox_.Report(TimingsReportMessage(sweep));
}

void Sampler::ReportLosses() {
  const LostSnapshots lost = outbox_.lost();
  v1::CollectionLosses losses;
  losses.set_agent_started_unix_nanos(started_unix_nanos_);
  losses.set_skipped_ticks(replaying_ ? 0 : stats_.missed_ticks);
  losses.set_failed_reads(stats_.failed);
  losses.set_dropped(lost.dropped);
  losses.set_refused(lost.refused);
  losses.set_unreadable(lost.unreadable);
  losses.set_unspoolable(lost.unspoolable);
  std::string counts = losses.SerializeAsString();
  if (losses_reported_ == counts) return;
  outbox_.Report(LossesReportMessage(losses));
  losses_reported_ = std::move(counts);
}

void Sampler::Finish(const std::shared_ptr<Schedule>& schedule, Reading reading) {
  for (const std::string& warning : reading.warnings) log_.Warning(warning);
  if (reading.providers) NoteProviders(std::move(*reading.providers));
  if (!reading.titles_error.ok()) {
    log_.Warning("cannot read the title database: " + reading.titles_error.message());
  }
  if (reading.new_titles) AdoptTitles(std::move(reading.new_titles));
  if (!reading.raw) {
    if (!reading.resolve_error.ok()) {
      ++stats_.failed;
      log_.Error("query " + schedule->label + ": " + reading.resolve_error.message());
    } else if (!reading.titles_error.ok()) {
      // Without a title database nothing can be read: the host's health says why.
      ReportFailure(reading.titles_error.message());
    } else {
      ++stats_.failed;
    }
    Reschedule(schedule);
    return;
  }
  schedule->resolved = reading.query;
  Result<std::vector<uint8_t>>& raw = *reading.raw;
  if (!replaying_) {
    if (std::optional<v1::ObjectTimings> sweep =
            sweep_.Note(std::move(reading.timed), raw.ok() ? &*raw : nullptr,
                        ObjectSweep::Clock::now(), schedule->every)) {
      NoteSweep(*sweep);
    }
  }
  if (raw.ok()) {
    if (std::exchange(failing_, false)) {
      last_failure_.clear();
      outbox_.Report(HealthReportMessage("", UnixNanosNow()));
    }
    ++stats_.taken;
    outbox_.Push(SnapshotRecord{.owner = owner_,
                                .instance_id = instance_id_,
                                .sequence = next_sequence_++,
                                .query = schedule->resolved,
                                .titles = title_refs_,
                                .raw = std::move(raw).value()});
  } else if (raw.status().code() == StatusCode::kOutOfRange) {
    log_.Info(raw.error());
    schedule->timer.cancel();
    if (on_exhausted_) std::exchange(on_exhausted_, nullptr)();
    return;
  } else {
    log_.Error("snapshot of " + schedule->label + " failed: " + raw.error());
    ReportFailure(raw.error());
  }
  Reschedule(schedule);
}

void Sampler::Reschedule(const std::shared_ptr<Schedule>& schedule) {
  if (schedule->retired) return;
  auto now = asio::steady_timer::clock_type::now();
  schedule->due += schedule->every;
  if (schedule->due <= now) {
    auto behind = now - schedule->due;
    uint64_t missed = static_cast<uint64_t>(behind / schedule->every) + 1;
    stats_.missed_ticks += missed;
    schedule->due += schedule->every * static_cast<int64_t>(missed);
    log_.Warning("sampling " + schedule->label + " fell behind its schedule; ticks skipped");
  }
  ReportLosses();
  Arm(schedule);
}

}  // namespace perfhive
