// Alert: one instance of an alerting rule, for one series or group whose condition held, as the
// rules' evaluator keeps it (durably) and as a notifier sends it on to Prometheus Alertmanager;
// and AlertNotifier, the seam between the two. docs/alerts.md describes the states.

#ifndef PERFHIVE_SERVER_ALERTS_ALERT_H_
#define PERFHIVE_SERVER_ALERTS_ALERT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace perfhive {

struct Alert {
  // Pending: the condition holds now, for less than the rule's duration. Firing: it has held
  // for at least the duration and holds now. Resolved: it held (firing) and no longer does.
  enum class State { kPending, kFiring, kResolved };

  std::string rule;    // the rule's name
  std::string series;  // the path of the series or group it is about, as queries show it
  State state = State::kPending;
  // What identifies it to Alertmanager: alertname (the rule), severity, host (a host's series),
  // the rule's own labels, the host's labels. Two alerts with the same labels are one.
  std::map<std::string, std::string> labels;
  // summary, description, value: what a notification shows.
  std::map<std::string, std::string> annotations;
  int64_t active_since_ns = 0;  // when the run that made it began to hold
  int64_t firing_since_ns = 0;  // when it had held for the rule's duration; 0 while pending
  int64_t resolved_ns = 0;      // the last time it held, once it no longer does; 0 while active
  int64_t last_held_ns = 0;     // the newest time it was seen to hold
  double value = 0;             // its latest value
  bool delivered = false;       // resolved, and the receiver has taken it (or there is none)

  bool operator==(const Alert&) const = default;
};

// "pending", "firing", "resolved": as listings and the saved alerts name a state.
inline const char* AlertStateName(Alert::State state) {
  switch (state) {
    case Alert::State::kPending:
      return "pending";
    case Alert::State::kFiring:
      return "firing";
    case Alert::State::kResolved:
      return "resolved";
  }
  return "?";
}

// Where the evaluator sends its alerts after each evaluation: every firing alert, again each
// time (Alertmanager takes an alert that is not re-sent within its end time as resolved), and
// every resolved one not yet delivered. A notifier delivers on its own thread and calls
// `delivered` with the resolved alerts the receiver took, so the evaluator can forget them; a
// resolved alert that was not delivered is given again at the next evaluation, also after a
// restart of the server.
class AlertNotifier {
 public:
  using Delivered = std::function<void(const std::vector<Alert>& resolved)>;

  virtual ~AlertNotifier() = default;
  // `now_ns`: the evaluation's time; `resend_ns`: how long a firing alert stays firing at the
  // receiver without being sent again (a few evaluation intervals).
  virtual void Notify(const std::vector<Alert>& alerts, int64_t now_ns, int64_t resend_ns) = 0;
  void set_delivered(Delivered delivered) { delivered_ = std::move(delivered); }

 protected:
  Delivered delivered_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_ALERTS_ALERT_H_
