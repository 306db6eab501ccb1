#include "server/app/stop_signals.h"

#include <pthread.h>
#include <signal.h>

namespace perfhive {
namespace {

sigset_t ServerSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  return signals;
}

}  // namespace

void BlockServerSignals() {
  sigset_t signals = ServerSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

std::string WaitForStopSignal(const std::function<void()>& on_hangup) {
  sigset_t signals = ServerSignals();
  int signal_number = 0;
  while (sigwait(&signals, &signal_number) == 0 && signal_number == SIGHUP) on_hangup();
  return signal_number == SIGINT ? "SIGINT" : "SIGTERM";
}

}  // namespace perfhive
