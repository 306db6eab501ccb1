#include "agent/server_reports.h"

namespace perfhive {

v1::AgentMessage HealthReportMessage(const std::string& last_error, int64_t now_unix_nanos) {
  v1::AgentMessage message;
  v1::HealthReport* health = message.mutable_health();
  health->set_last_error(last_error);
  if (last_error.empty()) {
    health->set_last_success_unix_nanos(now_unix_nanos);
  } else {
    health->set_last_error_unix_nanos(now_unix_nanos);
  }
  return message;
}

v1::AgentMessage ProvidersReportMessage(const std::vector<DisabledProvider>& disabled) {
  v1::AgentMessage message;
  v1::ProviderReport* report = message.mutable_providers();
  for (const DisabledProvider& provider : disabled) {
    v1::DisabledProvider* out = report->add_disabled();
    out->set_service(provider.service);
    out->set_disable_value(provider.disable_value);
    out->set_library(provider.library);
    out->mutable_object_indexes()->Add(provider.object_indexes.begin(),
                                       provider.object_indexes.end());
  }
  return message;
}

v1::AgentMessage LossesReportMessage(const v1::CollectionLosses& losses) {
  v1::AgentMessage message;
  *message.mutable_losses() = losses;
  return message;
}

v1::AgentMessage TimingsReportMessage(const v1::ObjectTimings& timings) {
  v1::AgentMessage message;
  *message.mutable_timings() = timings;
  return message;
}

bool SentOnEveryStream(const v1::AgentMessage& report) { return IsCollectionReport(report); }

bool IsCollectionReport(const v1::AgentMessage& report) {
  return report.has_providers() || report.has_losses() || report.has_timings();
}

}  // namespace perfhive
