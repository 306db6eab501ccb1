// The signals perfhive-server answers: SIGINT and SIGTERM stop it, SIGHUP reads its policies
// again. They are blocked in every thread and taken by sigwait on the main thread, so no handler
// interrupts a thread at an arbitrary point.

#ifndef PERFHIVE_SERVER_APP_STOP_SIGNALS_H_
#define PERFHIVE_SERVER_APP_STOP_SIGNALS_H_

#include <functional>
#include <string>

namespace perfhive {

// Blocks the three in the calling thread; every thread started after this inherits the mask, so
// call it first thing in main.
void BlockServerSignals();

// Waits for SIGINT or SIGTERM, calling `on_hangup` for each SIGHUP meanwhile. Returns the name of
// the signal that ended the wait as the log shows it, "SIGINT" or "SIGTERM".
std::string WaitForStopSignal(const std::function<void()>& on_hangup);

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_APP_STOP_SIGNALS_H_
