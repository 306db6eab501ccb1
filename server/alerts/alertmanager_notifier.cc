#include "server/alerts/alertmanager_notifier.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "perfdata/time_text.h"

namespace perfhive {

std::string AlertmanagerPostBody(const std::vector<Alert>& alerts, int64_t now_ns,
                                 int64_t resend_ns, const std::string& generator_url) {
  nlohmann::json body = nlohmann::json::array();
  for (const Alert& alert : alerts) {
    if (alert.state == Alert::State::kPending) continue;
    nlohmann::json posted;
    posted["labels"] = alert.labels;
    posted["annotations"] = alert.annotations;
    posted["startsAt"] = FormatRfc3339(alert.active_since_ns, 3);
    const int64_t ends =
        alert.state == Alert::State::kResolved ? alert.resolved_ns : now_ns + resend_ns;
    posted["endsAt"] = FormatRfc3339(ends, 3);
    if (!generator_url.empty()) posted["generatorURL"] = generator_url;
    body.push_back(std::move(posted));
  }
  // Label and annotation values are texts hosts sent (instance names): replaced, not refused,
  // where they are not UTF-8, as Alertmanager takes only UTF-8.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

AlertmanagerNotifier::AlertmanagerNotifier(AlertmanagerOptions options, ServerLog* log)
    : options_(std::move(options)), log_(log), thread_([this] { Run(); }) {}

AlertmanagerNotifier::~AlertmanagerNotifier() { Stop(); }

void AlertmanagerNotifier::Notify(const std::vector<Alert>& alerts, int64_t now_ns,
                                  int64_t resend_ns) {
  {
    std::lock_guard lock(mutex_);
    to_send_ = View{alerts, now_ns, resend_ns, ++generation_};
  }
  wake_.notify_one();
}

void AlertmanagerNotifier::Stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  abort_ = true;
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

AlertmanagerNotifier::Stats AlertmanagerNotifier::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void AlertmanagerNotifier::Run() {
  HttpClient client(options_.http);
  client.set_abort_flag(&abort_);
  const std::string url = options_.url + (options_.url.ends_with('/') ? "" : "/") + "api/v2/alerts";
  std::chrono::milliseconds pause{0};
  bool failing = false;
  for (;;) {
    View view;
    {
      std::unique_lock lock(mutex_);
      // After a failure, wait out the pause unless told to stop; a newer view does not cut it
      // short (a receiver that is down is not asked faster because the rules were evaluated).
      if (pause.count() > 0) {
        wake_.wait_for(lock, pause, [this] { return stopping_; });
      }
      wake_.wait(lock, [this] { return stopping_ || to_send_.has_value(); });
      if (stopping_) return;
      view = *to_send_;
    }
    const std::string body =
        AlertmanagerPostBody(view.alerts, view.now_ns, view.resend_ns, options_.generator_url);
    Result<HttpResponse> response = client.Post(url, body, {"Content-Type: application/json"});
    const bool accepted = response.ok() && response->status >= 200 && response->status < 300;
    std::vector<Alert> resolved;
    {
      std::lock_guard lock(mutex_);
      if (accepted) {
        ++stats_.posts;
        stats_.alerts_sent += static_cast<uint64_t>(std::count_if(
            view.alerts.begin(), view.alerts.end(),
            [](const Alert& alert) { return alert.state != Alert::State::kPending; }));
        // A newer view came while this one was posted: it is sent next.
        if (to_send_ && to_send_->generation == view.generation) to_send_.reset();
      } else {
        ++stats_.failed_posts;
        stats_.last_error = response.ok()
                                ? "HTTP " + std::to_string(response->status) + ": " + response->body
                                : response.error();
      }
    }
    if (accepted) {
      for (Alert& alert : view.alerts) {
        if (alert.state == Alert::State::kResolved) resolved.push_back(std::move(alert));
      }
      if (!resolved.empty() && delivered_) delivered_(resolved);
      if (failing && log_ != nullptr) log_->Info("alertmanager_reached", {{"url", url}});
      failing = false;
      pause = std::chrono::milliseconds(0);
      continue;
    }
    if (abort_) return;
    if (!failing && log_ != nullptr) {
      log_->Warn("alertmanager_unreachable", {{"url", url}, {"error", stats().last_error}});
    }
    failing = true;
    pause = pause.count() == 0 ? kFirstRetryPause : std::min(pause * 2, kMaxRetryPause);
  }
}

}  // namespace perfhive
