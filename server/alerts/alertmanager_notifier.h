// AlertmanagerNotifier: delivers the rules' alerts to Prometheus Alertmanager through its v2 API
// (POST /api/v2/alerts), so that grouping, routing, silences and notification channels are
// Alertmanager's. It posts on a thread of its own: an evaluation never waits on the network.
// Each Notify replaces what is to be sent by the evaluator's newest view (every firing alert and
// every resolved one not yet delivered), so a receiver that was down gets the state as it is
// now rather than a backlog; a failed post is tried again after a pause that doubles up to
// kMaxRetryPause. docs/alerts.md says what is sent and when.

#ifndef PERFHIVE_SERVER_ALERTS_ALERTMANAGER_NOTIFIER_H_
#define PERFHIVE_SERVER_ALERTS_ALERTMANAGER_NOTIFIER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "export/http_client.h"
#include "server/alerts/alert.h"
#include "server/log/server_log.h"

namespace perfhive {

struct AlertmanagerOptions {
  std::string url;            // Alertmanager's base URL: http://alertmanager:9093
  HttpClientOptions http;     // TLS and credentials, as for remote-write
  std::string generator_url;  // where a notification links back to: the server's console
};

// The body of a post: a JSON list of Alertmanager's postable alerts. A firing alert is sent with
// an end `resend_ns` after `now_ns` (if it is not sent again by then, Alertmanager resolves it
// itself: the server went away), a resolved one with its own end; pending ones are not sent.
std::string AlertmanagerPostBody(const std::vector<Alert>& alerts, int64_t now_ns,
                                 int64_t resend_ns, const std::string& generator_url);

class AlertmanagerNotifier final : public AlertNotifier {
 public:
  static constexpr std::chrono::milliseconds kFirstRetryPause{500};
  static constexpr std::chrono::milliseconds kMaxRetryPause{30'000};

  struct Stats {
    uint64_t posts = 0;         // accepted by Alertmanager
    uint64_t failed_posts = 0;  // refused, or not answered
    uint64_t alerts_sent = 0;   // in accepted posts
    std::string last_error;
  };

  // Starts the sending thread; `log` (may be null) gets a line per failure burst.
  AlertmanagerNotifier(AlertmanagerOptions options, ServerLog* log);
  ~AlertmanagerNotifier() override;
  AlertmanagerNotifier(const AlertmanagerNotifier&) = delete;
  AlertmanagerNotifier& operator=(const AlertmanagerNotifier&) = delete;

  void Notify(const std::vector<Alert>& alerts, int64_t now_ns, int64_t resend_ns) override;
  // Stops the thread; a post in flight is abandoned. Also done by the destructor.
  void Stop();
  Stats stats() const;

 private:
  struct View {
    std::vector<Alert> alerts;
    int64_t now_ns = 0;
    int64_t resend_ns = 0;
    uint64_t generation = 0;  // which Notify made it
  };

  void Run();

  const AlertmanagerOptions options_;
  ServerLog* const log_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<View> to_send_;  // the newest view not yet delivered
  uint64_t generation_ = 0;
  bool stopping_ = false;
  std::atomic<bool> abort_{false};
  Stats stats_;
  std::thread thread_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ALERTS_ALERTMANAGER_NOTIFIER_H_
