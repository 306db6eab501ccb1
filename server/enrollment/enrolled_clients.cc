#include "server/enrollment/enrolled_clients.h"

#include "perfdata/case_folding.h"
#include "perfdata/name_pattern.h"
#include "pki/certificate_request.h"

namespace perfhive {
namespace {

// "the credential of host \"web01\"", or of reader "alice".
std::string CredentialOf(const CredentialInfo& credential) {
  return std::string("the credential of ") + (credential.read ? "reader" : "host") + " \"" +
         credential.host + "\"";
}

// Each says the command that revoked it, which tells a reader's revocation from its host
// namesake's.
std::string RevokedMessage(const CredentialInfo& credential) {
  if (credential.read) {
    return CredentialOf(credential) +
           " was revoked (perfhive-server readers revoke): log in again with a new enrollment "
           "token (perfhive login --enroll)";
  }
  return CredentialOf(credential) +
         " was revoked (perfhive-server hosts revoke): enroll it again with a new enrollment "
         "token";
}

}  // namespace

Result<std::map<std::string, std::string>> EnrolledClients::RevokedSince(
    std::chrono::system_clock::time_point since) const {
  Result<std::vector<CredentialInfo>> revoked = registry_.RevokedSince(since);
  if (!revoked.ok()) return revoked.status();
  std::map<std::string, std::string> why;
  for (const CredentialInfo& credential : *revoked) {
    why[FoldCase(credential.serial)] = RevokedMessage(credential);
  }
  return why;
}

Result<std::optional<Principal>> EnrolledClients::FromPeer(
    const grpc::AuthContext& auth, std::chrono::system_clock::time_point now) const {
  std::vector<grpc::string_ref> pems = auth.FindPropertyValues("x509_pem_cert");
  if (pems.empty()) return std::optional<Principal>();
  Result<CertificateSubject> subject =
      DescribeCertificate(std::string_view(pems.front().data(), pems.front().size()));
  if (!subject.ok()) return Status(StatusCode::kUnauthenticated, subject.error());
  Result<CredentialInfo> credential = registry_.FindCredential(subject->serial);
  if (!credential.ok()) {
    if (credential.status().code() != StatusCode::kNotFound) return credential.status();
    return Status(StatusCode::kUnauthenticated,
                  "the client certificate (serial " + subject->serial +
                      ") is not one this server issued at enrollment");
  }
  if (credential->revoked) {
    return Status(StatusCode::kUnauthenticated, RevokedMessage(*credential));
  }
  if (credential->expires <= now) {
    return Status(StatusCode::kUnauthenticated, CredentialOf(*credential) + " has expired");
  }
  if (FoldCase(subject->common_name) != FoldCase(credential->host)) {
    return Status(StatusCode::kUnauthenticated,
                  "the client certificate names \"" + subject->common_name +
                      "\", but was issued to \"" + credential->host + "\"");
  }
  if (credential->read) {
    return std::optional<Principal>(Principal{.name = "enrolled reader " + credential->host,
                                              .write_hosts = {},
                                              .read = true,
                                              .certificate_serial = subject->serial,
                                              .enrolled_host = ""});
  }
  // A poller's certificate speaks for the hosts it polls too (their names are exact: patterns
  // that match only themselves).
  std::vector<std::string> write_hosts = {EscapePattern(credential->host)};
  for (const std::string& target : credential->targets) {
    write_hosts.push_back(EscapePattern(target));
  }
  return std::optional<Principal>(Principal{.name = "enrolled host " + credential->host,
                                            .write_hosts = std::move(write_hosts),
                                            .read = false,
                                            .certificate_serial = subject->serial,
                                            .enrolled_host = credential->host});
}

}  // namespace perfhive
