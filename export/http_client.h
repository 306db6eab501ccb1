// HttpClient: HTTP/1.1 (or HTTP/2 over TLS) requests through libcurl, one connection kept alive
// per client, for the remote-write sender and the tests. Not thread-safe: one per thread.

#ifndef PERFHIVE_EXPORT_HTTP_CLIENT_H_
#define PERFHIVE_EXPORT_HTTP_CLIENT_H_

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace perfhive {

struct HttpClientOptions {
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{30000};  // the whole exchange
  // Basic authentication when `username` is set; a bearer token when `bearer_token` is.
  std::string username;
  std::string password;
  std::string bearer_token;
  // TLS (https URLs): the CA bundle to trust instead of the system's, a client certificate and
  // key for mutual TLS, and whether to skip verifying the receiver (tests only).
  std::string ca_file;
  std::string client_cert_file;
  std::string client_key_file;
  bool insecure_skip_verify = false;
  // The most of a response body kept: a receiver's error message needs little; a test reading
  // a whole /metrics page or a query result more.
  size_t max_body_bytes = 64 * 1024;
};

struct HttpResponse {
  long status = 0;
  std::string body;  // at most HttpClientOptions::max_body_bytes
};

class HttpClient {
 public:
  explicit HttpClient(HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // A request abandons when `*abort` turns true (checked about once a second and on progress).
  void set_abort_flag(const std::atomic<bool>* abort) { abort_ = abort; }

  // Any HTTP status is a response; a network failure is kUnavailable, a timeout
  // kDeadlineExceeded, an abandoned request kCancelled.
  Result<HttpResponse> Post(const std::string& url, std::string_view body,
                            const std::vector<std::string>& headers);
  Result<HttpResponse> Get(const std::string& url);

 private:
  Result<HttpResponse> Perform(std::string_view method, const std::string& url,
                               const std::vector<std::string>& headers);

  HttpClientOptions options_;
  void* curl_;  // CURL*, kept so its connection is reused
  const std::atomic<bool>* abort_ = nullptr;
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_HTTP_CLIENT_H_
