#include "perfdata/instance_gaps.h"

namespace perfhive {

std::vector<InstanceGap> InstanceGapTracker::Note(const SnapshotReader& snapshot,
                                                  int64_t sample_ns) {
  if (sample_ns <= last_ns_) objects_.clear();
  last_ns_ = sample_ns;
  std::vector<InstanceGap> gaps;
  for (const ObjectView& object : snapshot.objects()) {
    if (!object.has_instance_list()) continue;
    if (object.num_instances() > kMostInstancesFollowed) {
      objects_.erase(object.name_index());
      continue;
    }
    FollowedObject& followed = objects_[object.name_index()];
    if (followed.last_ns == sample_ns) continue;  // its index repeats: the first one is followed
    followed.last_ns = sample_ns;
    for (const InstanceView& instance : object.instances()) {
      std::span<const uint8_t> raw = instance.raw_name();
      std::string_view name(reinterpret_cast<const char*>(raw.data()), raw.size());
      auto it = followed.instances.find(name);
      if (it == followed.instances.end()) {
        followed.instances.emplace(std::string(name), Seen{sample_ns, sample_ns, 0});
        continue;
      }
      Seen& seen = it->second;
      if (seen.gone_ns != 0) {
        if (sample_ns - seen.gone_ns <= kLongestGapNs &&
            seen.last_ns - seen.first_ns >= kSettledPresenceNs) {
          gaps.push_back(InstanceGap{.object_index = object.name_index(),
                                     .instance = InstanceName(object, instance),
                                     .gone_ns = seen.gone_ns,
                                     .back_ns = sample_ns});
        }
        seen.first_ns = sample_ns;
        seen.gone_ns = 0;
      }
      seen.last_ns = sample_ns;
    }
    // Those this snapshot lacks went now; those gone longer than a gap are gone for good.
    for (auto it = followed.instances.begin(); it != followed.instances.end();) {
      Seen& seen = it->second;
      if (seen.last_ns != sample_ns && seen.gone_ns == 0) seen.gone_ns = sample_ns;
      if (seen.gone_ns != 0 && sample_ns - seen.gone_ns > kLongestGapNs) {
        it = followed.instances.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Objects not seen for longer than a gap: when they come back, their instances start afresh.
  std::erase_if(objects_, [&](const auto& entry) {
    return sample_ns - entry.second.last_ns > kLongestGapNs;
  });
  return gaps;
}

}  // namespace perfhive
