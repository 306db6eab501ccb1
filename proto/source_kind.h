// How a host's source kind reads in tables, JSON and the store: "agent", "agentless" or
// "poller" (docs/policies.md), the words the CLI, the HTTP API and the hosts table share.

#ifndef PERFHIVE_PROTO_SOURCE_KIND_H_
#define PERFHIVE_PROTO_SOURCE_KIND_H_

#include <string_view>

#include "perfhive/v1/ingest.pb.h"

namespace perfhive {

inline const char* SourceKindName(v1::SourceKind kind) {
  switch (kind) {
    case v1::SOURCE_KIND_AGENTLESS:
      return "agentless";
    case v1::SOURCE_KIND_POLLER:
      return "poller";
    default:
      return "agent";
  }
}

inline v1::SourceKind SourceKindNamed(std::string_view name) {
  if (name == "agentless") return v1::SOURCE_KIND_AGENTLESS;
  if (name == "poller") return v1::SOURCE_KIND_POLLER;
  return v1::SOURCE_KIND_AGENT;
}

}  // namespace perfhive

#endif  // PERFHIVE_PROTO_SOURCE_KIND_H_
