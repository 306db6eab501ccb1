// `perfhive-agent drain`: ships what spool folders hold, each snapshot under the owner it was
// taken for, then exits. For the snapshots an agent keeps aside and never ships itself: those of
// a host since renamed, or of another agent that once used the same --spool-dir. It drains the
// folder --spool-dir names (default: the default spool root) and the folders directly in it,
// skipping any folder an agent is using now.

#ifndef PERFHIVE_AGENT_DRAIN_COMMAND_H_
#define PERFHIVE_AGENT_DRAIN_COMMAND_H_

#include "agent/agent_config.h"
#include "agent/logger.h"
#include "port/env.h"

namespace perfhive {

// The process exit code: 0 once the server answered every snapshot and none was lost, 1
// otherwise (a setup error, a folder in use, snapshots lost or unanswered at --timeout or at a
// signal). `config.host_name` names the owner of snapshots spooled by agents that did not
// record it; without it they stay.
int DrainSpools(const AgentConfig& config, Env& env, Logger& log);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_DRAIN_COMMAND_H_
