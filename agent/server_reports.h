// The agent's word for the server beside its snapshots, as the stream carries it: the host's
// health (what reading it last gave), its disabled providers, what its pipeline lost, and how
// long each object takes alone. The sampler makes them; the outbox keeps the latest of each kind
// and the shipper sends them (docs/wire_protocol.md).

#ifndef PERFHIVE_AGENT_SERVER_REPORTS_H_
#define PERFHIVE_AGENT_SERVER_REPORTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "perfdata/disabled_provider.h"
#include "perfhive/v1/ingest.pb.h"

namespace perfhive {

// What reading the host last gave: an error (a host that cannot be reached, access denied), or
// "" once a read succeeds again; at `now_unix_nanos`.
v1::AgentMessage HealthReportMessage(const std::string& last_error, int64_t now_unix_nanos);
v1::AgentMessage ProvidersReportMessage(const std::vector<DisabledProvider>& disabled);
v1::AgentMessage LossesReportMessage(const v1::CollectionLosses& losses);
v1::AgentMessage TimingsReportMessage(const v1::ObjectTimings& timings);

// Whether every stream the server welcomes gets `report` again (what it says still holds, and a
// server that lost it, another one or a store restored, has it again), rather than the first
// stream up after it was made: disabled providers, losses and timings.
bool SentOnEveryStream(const v1::AgentMessage& report);
// Whether only a server whose Welcome says it takes collection reports may get `report`: an
// older one ends the stream on a message it does not know.
bool IsCollectionReport(const v1::AgentMessage& report);

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_SERVER_REPORTS_H_
