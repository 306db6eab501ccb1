#include "pki/pinned_ca.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <utility>
#include <vector>

#include "pki/fingerprint.h"
#include "pki/openssl_handles.h"

namespace perfhive {
namespace {

// The host of a target: "central:7470" -> "central", "[::1]:7470" -> "::1".
std::string TargetHost(std::string_view target) {
  if (target.starts_with('[')) {
    size_t close = target.find(']');
    return std::string(target.substr(1, close == std::string_view::npos ? target.npos : close - 1));
  }
  size_t colon = target.rfind(':');
  // More than one ':' without brackets is an IPv6 address without a port.
  if (colon != std::string_view::npos && target.find(':') == colon)
    target = target.substr(0, colon);
  return std::string(target);
}

Status Refused(std::string why) { return Status(StatusCode::kUnauthenticated, std::move(why)); }

// gRPC's hook into the handshake: the chain goes to VerifyPinnedChain, synchronously.
class PinnedCaVerifier : public grpc::experimental::ExternalCertificateVerifier {
 public:
  explicit PinnedCaVerifier(std::string fingerprint) : fingerprint_(std::move(fingerprint)) {}

  bool Verify(grpc::experimental::TlsCustomVerificationCheckRequest* request,
              std::function<void(grpc::Status)>, grpc::Status* sync_status) override {
    grpc::string_ref chain = request->peer_cert_full_chain();
    grpc::string_ref target = request->target_name();
    Status verified = VerifyPinnedChain(std::string_view(chain.data(), chain.size()), fingerprint_,
                                        std::string_view(target.data(), target.size()));
    *sync_status = verified.ok()
                       ? grpc::Status::OK
                       : grpc::Status(grpc::StatusCode::UNAUTHENTICATED, verified.message());
    return true;
  }
  void Cancel(grpc::experimental::TlsCustomVerificationCheckRequest*) override {}

 private:
  std::string fingerprint_;
};

}  // namespace

Status VerifyPinnedChain(std::string_view chain_pem, std::string_view fingerprint,
                         std::string_view target) {
  Result<ChainPtr> chain = ReadCertificates(chain_pem);
  if (!chain.ok()) return Refused("the server's certificates: " + chain.error());
  X509* pinned = nullptr;
  std::string offered;
  for (int i = 0; i < sk_X509_num(chain->get()); ++i) {
    X509* certificate = sk_X509_value(chain->get(), i);
    std::string sha256 = CertificateSha256(certificate);
    if (sha256 == fingerprint && X509_check_ca(certificate) != 0) pinned = certificate;
    offered += (offered.empty() ? "" : ", ") + FormatSha256Fingerprint(sha256);
  }
  if (pinned == nullptr) {
    return Refused("the server's certificates (" + offered + ") include no CA with the pinned " +
                   FormatSha256Fingerprint(fingerprint) +
                   ": another server, or one in the middle; check --ca-sha256 against what "
                   "perfhive-server init printed");
  }
  StorePtr store(X509_STORE_new());
  StoreContextPtr context(X509_STORE_CTX_new());
  if (store == nullptr || context == nullptr || !X509_STORE_add_cert(store.get(), pinned)) {
    return Status::Internal(OpenSslError("out of memory"));
  }
  X509* server = sk_X509_value(chain->get(), 0);
  if (!X509_STORE_CTX_init(context.get(), store.get(), server, chain->get())) {
    return Status::Internal(OpenSslError("cannot set up the chain's verification"));
  }
  X509_STORE_CTX_set_purpose(context.get(), X509_PURPOSE_SSL_SERVER);
  if (X509_verify_cert(context.get()) != 1) {
    int error = X509_STORE_CTX_get_error(context.get());
    ERR_clear_error();
    return Refused("the server's certificate does not chain to the pinned CA " +
                   FormatSha256Fingerprint(fingerprint) + ": " +
                   X509_verify_cert_error_string(error));
  }
  std::string host = TargetHost(target);
  bool named = X509_check_ip_asc(server, host.c_str(), 0) == 1 ||
               X509_check_host(server, host.data(), host.size(), 0, nullptr) == 1;
  ERR_clear_error();
  if (!named) {
    return Refused("the server's certificate is not for \"" + host +
                   "\": give perfhive-server init this name (--name) or address (--address), "
                   "or dial one it has");
  }
  return Status();
}

Result<std::shared_ptr<grpc::ChannelCredentials>> ClientChannelCredentials(const ClientTls& tls) {
  if (tls.certificate_pem.empty() != tls.key_pem.empty()) {
    return Status::InvalidArgument("mutual TLS needs both a certificate and its key");
  }
  if (tls.ca_sha256.empty()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = tls.ca_pem;
    ssl.pem_cert_chain = tls.certificate_pem;
    ssl.pem_private_key = tls.key_pem;
    return grpc::SslCredentials(ssl);
  }
  if (!tls.ca_pem.empty()) {
    return Status::InvalidArgument(
        "give the server's CA as a file (--ca) or as a fingerprint (--ca-sha256), not both");
  }
  Result<std::string> pin = ParseSha256Fingerprint(tls.ca_sha256);
  if (!pin.ok()) return pin.status().Prefixed("--ca-sha256: ");
  grpc::experimental::TlsChannelCredentialsOptions options;
  // The pin replaces the check against root certificates and gRPC's host name check; both are
  // in VerifyPinnedChain.
  options.set_verify_server_certs(false);
  options.set_check_call_host(false);
  options.set_certificate_verifier(
      grpc::experimental::ExternalCertificateVerifier::Create<PinnedCaVerifier>(*pin));
  if (!tls.certificate_pem.empty()) {
    std::vector<grpc::experimental::IdentityKeyCertPair> identity = {
        {.private_key = tls.key_pem, .certificate_chain = tls.certificate_pem}};
    options.set_certificate_provider(
        std::make_shared<grpc::experimental::StaticDataCertificateProvider>(identity));
    options.watch_identity_key_cert_pairs();
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      grpc::experimental::TlsCredentials(options);
  if (credentials == nullptr) return Status::Internal("gRPC refused the TLS options");
  return credentials;
}

}  // namespace perfhive
