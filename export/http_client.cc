#include "export/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>

namespace perfhive {
namespace {

CURL* Handle(void* curl) { return static_cast<CURL*>(curl); }

// Where a response body goes, and how much of it is kept.
struct BodySink {
  std::string* body;
  size_t max_bytes;
};

size_t CollectBody(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  size_t bytes = size * count;
  size_t room = sink->max_bytes - std::min(sink->body->size(), sink->max_bytes);
  sink->body->append(data, std::min(bytes, room));
  return bytes;  // the rest is read and discarded, so the connection stays usable
}

int CheckAbort(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* abort = static_cast<const std::atomic<bool>*>(user);
  return abort != nullptr && abort->load() ? 1 : 0;
}

}  // namespace

HttpClient::HttpClient(HttpClientOptions options) : options_(std::move(options)) {
  // curl_global_init is not thread-safe; every client goes through here first.
  static std::once_flag global_init;
  std::call_once(global_init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
}

HttpClient::~HttpClient() { curl_easy_cleanup(Handle(curl_)); }

Result<HttpResponse> HttpClient::Post(const std::string& url, std::string_view body,
                                      const std::vector<std::string>& headers) {
  CURL* curl = Handle(curl_);
  if (curl == nullptr) return Status::Internal("libcurl could not create a handle");
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  return Perform("POST", url, headers);
}

Result<HttpResponse> HttpClient::Get(const std::string& url) {
  if (curl_ == nullptr) return Status::Internal("libcurl could not create a handle");
  curl_easy_reset(Handle(curl_));
  return Perform("GET", url, {});
}

Result<HttpResponse> HttpClient::Perform(std::string_view method, const std::string& url,
                                         const std::vector<std::string>& headers) {
  CURL* curl = Handle(curl_);
  HttpResponse response;
  curl_slist* header_list = nullptr;
  // "Expect: 100-continue" would cost a round trip per request on large bodies.
  header_list = curl_slist_append(header_list, "Expect:");
  for (const std::string& header : headers) {
    header_list = curl_slist_append(header_list, header.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, header_list);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM: threads are ours
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, CollectBody);
  BodySink sink{&response.body, options_.max_body_bytes};
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, CheckAbort);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, abort_);
  if (!options_.username.empty()) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
    curl_easy_setopt(curl, CURLOPT_USERNAME, options_.username.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, options_.password.c_str());
  } else if (!options_.bearer_token.empty()) {
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
    curl_easy_setopt(curl, CURLOPT_XOAUTH2_BEARER, options_.bearer_token.c_str());
  }
  if (!options_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
  if (!options_.client_cert_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, options_.client_cert_file.c_str());
  }
  if (!options_.client_key_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLKEY, options_.client_key_file.c_str());
  }
  if (options_.insecure_skip_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(header_list);
  if (code != CURLE_OK) {
    std::string message = std::string(method) + " " + url + ": " + curl_easy_strerror(code);
    if (code == CURLE_OPERATION_TIMEDOUT) return Status::DeadlineExceeded(message);
    if (code == CURLE_ABORTED_BY_CALLBACK) return Status(StatusCode::kCancelled, message);
    return Status::Unavailable(message);
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace perfhive
