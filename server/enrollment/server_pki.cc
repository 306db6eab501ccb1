#include "server/enrollment/server_pki.h"

#include <algorithm>
#include <span>

#include "pki/certificate_authority.h"
#include "pki/fingerprint.h"

namespace perfhive {
namespace {

// Names and addresses a client on the server's own host dials.
constexpr const char* kLoopbackNames[] = {"localhost"};
constexpr const char* kLoopbackAddresses[] = {"127.0.0.1", "::1"};

void AddMissing(std::vector<std::string>& list, const char* item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

ServerPkiPaths PkiPaths(const std::string& data_dir) {
  std::string dir = data_dir + "/pki/";
  return {.ca_certificate = dir + "ca.pem",
          .ca_key = dir + "ca.key",
          .certificate = dir + "server.pem",
          .key = dir + "server.key"};
}

Status InitServerPki(Env& env, const InitOptions& options, std::ostream& out) {
  if (options.data_dir.empty()) return Status::InvalidArgument("give --data DIR");
  if (options.names.empty() && options.addresses.empty()) {
    return Status::InvalidArgument(
        "give --name NAME (the DNS name agents dial, e.g. central.example) or --address IP: "
        "the server's certificate must name what agents connect to");
  }
  ServerPkiPaths paths = PkiPaths(options.data_dir);
  std::vector<std::string> names = options.names;
  std::vector<std::string> addresses = options.addresses;
  for (const char* name : kLoopbackNames) AddMissing(names, name);
  for (const char* address : kLoopbackAddresses) AddMissing(addresses, address);

  bool new_ca = false;
  Result<CertificateAuthority> ca = Status::NotFound("");
  Result<std::string> ca_pem = ReadTextFile(env, paths.ca_certificate);
  if (ca_pem.ok()) {
    Result<std::string> ca_key = ReadTextFile(env, paths.ca_key);
    if (!ca_key.ok()) return ca_key.status().Prefixed("the CA's key: ");
    ca = CertificateAuthority::Load(*ca_pem, *ca_key);
    if (!ca.ok()) return ca.status().Prefixed(paths.ca_certificate + ": ");
  } else {
    ca = CertificateAuthority::Create("perfhive CA " + (names.empty() ? addresses[0] : names[0]),
                                      options.ca_valid);
    if (!ca.ok()) return ca.status();
    new_ca = true;
  }
  // Issued before anything is written: a bad name leaves the directory as it was.
  Result<IssuedCertificate> server =
      ca->IssueServerCertificate(names, addresses, options.certificate_valid);
  if (!server.ok()) return server.status();

  if (Status status = env.CreateDirectories(options.data_dir + "/pki"); !status.ok()) {
    return status;
  }
  if (new_ca) {
    if (Status status = env.WriteSecretFileAtomically(paths.ca_key, TextBytes(ca->KeyPem()));
        !status.ok()) {
      return status;
    }
    if (Status status =
            env.WriteFileAtomically(paths.ca_certificate, TextBytes(ca->CertificatePem()));
        !status.ok()) {
      return status;
    }
  }
  if (Status status = env.WriteSecretFileAtomically(paths.key, TextBytes(server->key_pem));
      !status.ok()) {
    return status;
  }
  if (Status status =
          env.WriteFileAtomically(paths.certificate, TextBytes(server->certificate_pem));
      !status.ok()) {
    return status;
  }

  std::string dialed;
  for (const auto* list : {&names, &addresses}) {
    for (const std::string& item : *list) dialed += (dialed.empty() ? "" : ", ") + item;
  }
  out << (new_ca ? "made a new CA: " : "kept the CA: ") << paths.ca_certificate << "\n"
      << "server certificate for " << dialed << ": " << paths.certificate << "\n"
      << "the CA's fingerprint, which agents and the CLI pin (--ca-sha256):\n  "
      << FormatSha256Fingerprint(ca->Sha256()) << "\n";
  return Status();
}

}  // namespace perfhive
