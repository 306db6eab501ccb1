// `perfhive-agent run`: samples a source on schedule and streams the snapshots to the server
// until stopped (SIGTERM, SIGINT), or, for a replay, until the server has answered every file.

#ifndef PERFHIVE_AGENT_RUN_COMMAND_H_
#define PERFHIVE_AGENT_RUN_COMMAND_H_

#include "agent/agent_config.h"
#include "agent/host_pipeline.h"
#include "agent/logger.h"
#include "perfhive/version.h"
#include "port/env.h"

namespace perfhive {

inline constexpr const char* kAgentVersion = kPerfhiveVersion;

// The server, TLS and token settings of `config`, checked and read.
Result<ServerConnection> ConnectionFromConfig(const AgentConfig& config, Env& env, Logger& log);

// The process exit code: 0 on a clean stop (a replay: every file answered, nothing lost), 1 on
// a setup error, or a replay with snapshots unanswered at the timeout or lost.
int RunAgent(const AgentConfig& config, Env& env, Logger& log);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_RUN_COMMAND_H_
