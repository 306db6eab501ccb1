// HttpServer: an HTTP/1.1 server (HTTPS with a certificate) over Debian's cpp-httplib, for the
// /metrics endpoint, the server's web console and the tests' stand-in receivers. Connections are
// kept alive between requests and served on worker threads, at most a fixed number at once;
// answers with a text, JSON or JavaScript type are compressed (gzip or brotli) for clients that
// accept it; request heads and bodies are bounded.

#ifndef PERFHIVE_EXPORT_HTTP_SERVER_H_
#define PERFHIVE_EXPORT_HTTP_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace perfhive {

// Orders header names as HTTP compares them: ASCII letters without regard to case.
struct HeaderNameLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const;
};

// A request as the handler is given it.
struct HttpRequest {
  std::string method;  // "GET"
  std::string path;    // "/metrics", without the query string, percent-decoded
  // The query string's parameters and an application/x-www-form-urlencoded body's fields.
  std::multimap<std::string, std::string> params;
  std::string body;
  std::string remote_address;  // the peer's IP address
  bool tls = false;            // arrived over HTTPS
  std::multimap<std::string, std::string, HeaderNameLess> headers;

  // Header value by name, case ignored; empty when absent (the first one when repeated). A
  // reference into the request (or to a static empty string): a string_view of it stays valid as
  // long as the request.
  const std::string& Header(std::string_view name) const;
  // First value of a parameter, or empty (a reference, as Header's); every value of it, in order.
  const std::string& Param(std::string_view name) const;
  std::vector<std::string> Params(std::string_view name) const;
};

// What a handler answers. Here and in HttpServerOptions, `{}` on the members without another
// default lets brace and designated initializers leave them out (GCC's
// -Wmissing-field-initializers).
struct HttpReply {
  int status = 200;
  // Compressed for clients that accept it when text/..., or exactly application/json or
  // application/javascript (cpp-httplib 0.11 compares those two without parameters).
  std::string content_type = "text/plain; charset=utf-8";
  std::string body{};
  // Extra headers: Set-Cookie, Location, Cache-Control, Content-Disposition...
  std::vector<std::pair<std::string, std::string>> headers{};
};

// How a server listens and what it bounds.
struct HttpServerOptions {
  // PEM certificate chain and its key: HTTPS (TLS 1.2 or later). Both empty: plain HTTP.
  std::string tls_cert_file{};
  std::string tls_key_file{};
  // A larger body is answered 413, unread, and the connection closed. Bodies come with a
  // Content-Length (chunked ones are answered 411); form bodies are parsed up to 8 KiB only
  // (cpp-httplib's limit: beyond, 413).
  size_t max_body_bytes = 64 * 1024;
  // Connections served at once, each for as long as it stays open (kept alive up to 5 s between
  // requests), including those waiting for a worker thread. Beyond, a connection is answered
  // 503 with Retry-After and closed.
  size_t max_connections = 64;
  // Threads serving connections, one each; 0: max(16, hardware threads) — a browser alone keeps
  // six connections open. At most max_connections.
  size_t worker_threads = 0;
};

class HttpServer {
 public:
  using Handler = std::function<HttpReply(const HttpRequest&)>;

  // Listens on `address`:`port` (port 0: a free one, see port()). `handler` runs on the worker
  // threads, several at once, never on the thread that accepts: it must be thread-safe. An
  // exception it throws is answered 500. A TLS certificate or key that cannot be read or used is
  // an error naming the file.
  static Result<std::unique_ptr<HttpServer>> Start(const std::string& address, uint16_t port,
                                                   Handler handler, HttpServerOptions options = {});
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const;
  // Closes the listener, lets the connections end and joins every thread. Idempotent. A
  // connection ends after the request it is serving (a handler that never returns keeps Stop
  // waiting); an idle kept-alive one within its 5 s idle timeout, as cpp-httplib 0.11's wait for
  // the next request does not watch the listener.
  void Stop();

 private:
  struct State;
  explicit HttpServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_HTTP_SERVER_H_
