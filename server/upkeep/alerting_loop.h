// AlertingLoop: evaluates the server's alerting rules once per their interval, on its own thread,
// until the server stops; before each evaluation it reads the rules file again if it changed,
// and a SIGHUP makes it read the file and evaluate at once.

#ifndef PERFHIVE_SERVER_UPKEEP_ALERTING_LOOP_H_
#define PERFHIVE_SERVER_UPKEEP_ALERTING_LOOP_H_

#include <thread>

#include "server/alerts/alerting.h"
#include "server/upkeep/loop_control.h"

namespace perfhive {

class AlertingLoop {
 public:
  AlertingLoop(Alerting& alerting, LoopControl& control) : alerting_(alerting), control_(control) {}
  AlertingLoop(const AlertingLoop&) = delete;
  AlertingLoop& operator=(const AlertingLoop&) = delete;
  ~AlertingLoop() { Stop(); }

  // The first evaluation comes at once: alerts that held while the server was down are known
  // as soon as it is up.
  void Start();
  // Asks every loop of the control to stop, and waits for this one's evaluation to end.
  void Stop();

 private:
  void Run();

  Alerting& alerting_;
  LoopControl& control_;
  std::thread thread_;
};

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_UPKEEP_ALERTING_LOOP_H_
