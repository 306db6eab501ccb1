// What an enrolling agent makes on its own host: a new private key, which never leaves it, and a
// certificate signing request (CSR) for it naming the host, which it sends with its enrollment
// token; the server answers with a client certificate from its CA (CertificateAuthority::
// IssueClientCertificate).

#ifndef PERFHIVE_PKI_CERTIFICATE_REQUEST_H_
#define PERFHIVE_PKI_CERTIFICATE_REQUEST_H_

#include <chrono>
#include <string>
#include <string_view>

#include "base/status.h"

namespace perfhive {

struct KeyAndRequest {
  std::string key_pem;      // EC P-256, PKCS#8
  std::string request_pem;  // PKCS#10, subject CN = the host name, signed with the key
};
Result<KeyAndRequest> MakeKeyAndRequest(std::string_view host_name);
// A request for a key made before (renewal keeps the key, so that only the certificate file
// changes and a crash cannot leave a key without its certificate).
Result<std::string> MakeRequestForKey(std::string_view key_pem, std::string_view host_name);

// What a certificate says of whom it is for: what the server reads from a client's certificate.
struct CertificateSubject {
  std::string common_name;
  std::string serial;  // lowercase hex, as the registry keeps it
  std::chrono::system_clock::time_point not_after;
};
// Of the first certificate of a PEM text.
Result<CertificateSubject> DescribeCertificate(std::string_view pem);

// Whether `request_pem` is a certificate signing request the CA would sign: readable PEM of at
// most 64 KiB, signed by its own key. The server checks it before anything is spent on it (an
// enrollment token's use); the error says what is wrong.
Status VerifyCertificateRequest(std::string_view request_pem);

}  // namespace perfhive

#endif  // PERFHIVE_PKI_CERTIFICATE_REQUEST_H_
