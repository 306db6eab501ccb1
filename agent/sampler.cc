#include "agent/sampler.h"

#include "agent/duration.h"
#include "sources/object_names_query.h"

namespace perfhive {

Sampler::Sampler(asio::io_context& io, SnapshotSource& source, Shipper& shipper, Outbox& outbox,
                 Logger& log, std::string instance_id, const std::vector<QuerySchedule>& queries,
                 std::chrono::milliseconds interval)
    : source_(source),
      shipper_(shipper),
      outbox_(outbox),
      log_(log),
      instance_id_(std::move(instance_id)) {
  for (const QuerySchedule& query : queries) {
    schedules_.push_back(std::unique_ptr<Schedule>(new Schedule{
        .query = query,
        .label = QueryLabel(query),
        .resolved = query.name,
        .every = ScheduleInterval(query, interval),
        .timer = asio::steady_timer(io),
        .due = {},
    }));
  }
}

void Sampler::Start() {
  // Before the first stream opens, so that its Hello names the database.
  RefreshTitles();
  auto now = asio::steady_timer::clock_type::now();
  for (auto& schedule : schedules_) {
    log_.Info("sampling " + schedule->label + " every " + FormatDuration(schedule->every));
    schedule->due = now;
    Arm(*schedule);
  }
}

void Sampler::Stop() {
  stopped_ = true;
  for (auto& schedule : schedules_) schedule->timer.cancel();
}

void Sampler::Arm(Schedule& schedule) {
  schedule.timer.expires_at(schedule.due);
  schedule.timer.async_wait([this, &schedule](const std::error_code& error) {
    if (error || stopped_) return;
    Tick(schedule);
  });
}

bool Sampler::RefreshTitles() {
  Result<std::optional<TitleBytes>> changed = source_.ReadTitlesIfChanged();
  if (!changed.ok()) {
    log_.Warning("cannot read the title database: " + changed.error());
    return titles_.has_value();
  }
  if (!changed->has_value()) return titles_.has_value();
  titles_ = std::move(**changed);
  title_refs_ = shipper_.SetTitles({*titles_});
  log_.Info("title database " + titles_->language + " is " + ToHex(title_refs_.front().sha256));
  // Object names may have other indexes now.
  for (auto& schedule : schedules_) {
    if (!schedule->query.objects.empty()) schedule->resolved.clear();
  }
  return true;
}

bool Sampler::Resolve(Schedule& schedule) {
  if (!schedule.resolved.empty()) return true;
  if (!titles_) return false;
  Result<std::string> indexes = QueryForObjectNames(*titles_, schedule.query.objects);
  if (!indexes.ok()) {
    log_.Error("query " + schedule.label + ": " + indexes.error());
    return false;
  }
  schedule.resolved = std::move(indexes).value();
  return true;
}

void Sampler::Tick(Schedule& schedule) {
  bool have_titles = RefreshTitles();
  if (have_titles && Resolve(schedule)) {
    Result<std::vector<uint8_t>> raw = source_.TakeSnapshot(schedule.resolved);
    for (const std::string& warning : source_.TakeWarnings()) log_.Warning(warning);
    if (raw.ok()) {
      if (std::exchange(failing_, false)) {
        last_failure_.clear();
        shipper_.ReportHealth("");
      }
      ++stats_.taken;
      outbox_.Push(SnapshotRecord{.instance_id = instance_id_,
                                  .sequence = next_sequence_++,
                                  .query = schedule.resolved,
                                  .titles = title_refs_,
                                  .raw = std::move(raw).value()});
    } else if (raw.status().code() == StatusCode::kOutOfRange) {
      log_.Info(raw.error());
      schedule.timer.cancel();
      if (on_exhausted_) std::exchange(on_exhausted_, nullptr)();
      return;
    } else {
      ++stats_.failed;
      log_.Error("snapshot of " + schedule.label + " failed: " + raw.error());
      if (raw.error() != last_failure_) {
        failing_ = true;
        last_failure_ = raw.error();
        shipper_.ReportHealth(raw.error());
      }
    }
  } else {
    ++stats_.failed;
  }
  // The next slot after now: slots that already passed are skipped, not taken late.
  auto now = asio::steady_timer::clock_type::now();
  schedule.due += schedule.every;
  if (schedule.due <= now) {
    auto behind = now - schedule.due;
    uint64_t missed = static_cast<uint64_t>(behind / schedule.every) + 1;
    stats_.missed_ticks += missed;
    schedule.due += schedule.every * static_cast<int64_t>(missed);
    log_.Warning("sampling " + schedule.label + " fell behind its schedule; ticks skipped");
  }
  Arm(schedule);
}

}  // namespace perfhive
