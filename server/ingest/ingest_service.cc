#include "server/ingest/ingest_service.h"

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "perfdata/case_folding.h"
#include "server/ingest/ingest_session.h"

namespace perfhive {

void IngestService::Track(IngestSession* session, const std::string& certificate_serial) {
  std::lock_guard lock(tracked_mutex_);
  tracked_[session] = Tracked{
      .certificate_serial = certificate_serial, .host = "", .granted_by = "", .renewal = {}};
}

void IngestService::TrackHost(IngestSession* session, const std::string& host,
                              const std::string& granted_by,
                              std::optional<EnrollmentService::Renewal> renewal) {
  std::lock_guard lock(tracked_mutex_);
  auto tracked = tracked_.find(session);
  if (tracked == tracked_.end()) return;
  tracked->second.host = host;
  tracked->second.granted_by = granted_by;
  tracked->second.renewal = renewal;
  AskRenewalIfDue(session, tracked->second, std::chrono::system_clock::now());
}

bool IngestService::AskRenewalIfDue(IngestSession* session, Tracked& tracked,
                                    std::chrono::system_clock::time_point now) {
  if (!tracked.renewal || tracked.renewal->due > now) return false;
  // One stream per certificate is asked: a poller's streams of all its hosts share one.
  if (renewals_asked_.insert(tracked.certificate_serial).second) {
    session->AskRenewal(tracked.renewal->expires);
  }
  tracked.renewal.reset();
  return true;
}

CollectionPlan IngestService::PlanFor(const std::string& host) const {
  if (policies_ == nullptr) return CollectionPlan();
  return policies_->book()->PlanFor(host);
}

bool IngestService::PollerMayPoll(const std::string& poller, const std::string& host) const {
  if (policies_ == nullptr) return false;
  return policies_->book()->PollerMayPoll(poller, host);
}

void IngestService::Untrack(IngestSession* session) {
  std::lock_guard lock(tracked_mutex_);
  tracked_.erase(session);
}

int IngestService::CloseRevokedStreams() {
  if (enrolled_clients_ == nullptr) return 0;
  // A stream authenticated a moment before a revocation committed is still caught: each pass
  // looks back a little before where the previous one started (`hosts revoke` runs on this
  // machine, on this clock).
  auto pass = std::chrono::system_clock::now();
  Result<std::map<std::string, std::string>> revoked =
      enrolled_clients_->RevokedSince(revocations_checked_ - std::chrono::seconds(10));
  if (!revoked.ok()) return 0;  // the next pass looks again from the same point
  revocations_checked_ = pass;
  if (revoked->empty()) return 0;
  int closed = 0;
  // Held throughout: a session leaves the map (OnDone) before it is deleted.
  std::lock_guard lock(tracked_mutex_);
  for (const auto& [session, tracked] : tracked_) {
    if (tracked.certificate_serial.empty()) continue;
    auto why = revoked->find(FoldCase(tracked.certificate_serial));
    if (why == revoked->end()) continue;
    session->Revoke(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, why->second));
    ++closed;
  }
  return closed;
}

int IngestService::AskRenewals(std::chrono::system_clock::time_point now) {
  int asked = 0;
  std::lock_guard lock(tracked_mutex_);
  for (auto& [session, tracked] : tracked_) {
    if (AskRenewalIfDue(session, tracked, now)) ++asked;
  }
  return asked;
}

void IngestService::RenewalFailed(const std::string& certificate_serial) {
  std::lock_guard lock(tracked_mutex_);
  renewals_asked_.erase(certificate_serial);
}

int IngestService::OfferPlans() {
  if (policies_ == nullptr) return 0;
  std::shared_ptr<const PolicyBook> book = policies_->book();
  int offered = 0;
  std::lock_guard lock(tracked_mutex_);
  for (const auto& [session, tracked] : tracked_) {
    if (tracked.host.empty()) continue;
    if (!tracked.granted_by.empty() && !book->PollerMayPoll(tracked.granted_by, tracked.host)) {
      session->Revoke(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                   "no policy gives host \"" + tracked.host + "\" to poller \"" +
                                       tracked.granted_by + "\" to poll any more"));
      continue;
    }
    if (session->OfferPlan(book->PlanFor(tracked.host))) ++offered;
  }
  return offered;
}

grpc::ServerBidiReactor<v1::AgentMessage, v1::ServerMessage>* IngestService::Stream(
    grpc::CallbackServerContext* context) {
  return new IngestSession(*this, context);
}

}  // namespace perfhive
