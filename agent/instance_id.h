// The instance id of a run: 128 random bits in lower-case hex. Sequence numbers restart at 1
// every run, so the server tells runs apart (and dedupes resends) by this id.

#ifndef PERFHIVE_AGENT_INSTANCE_ID_H_
#define PERFHIVE_AGENT_INSTANCE_ID_H_

#include <string>

namespace perfhive {

std::string NewInstanceId();

}  // namespace perfhive

#endif  // PERFHIVE_AGENT_INSTANCE_ID_H_
