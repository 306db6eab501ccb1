// HttpServer: an HTTP/1.1 server (HTTPS with a certificate) over Debian's cpp-httplib, for the
// /metrics endpoint, the server's web console and the tests' stand-in receivers. Connections are
// kept alive between requests, each served by a thread of its own, at most a fixed number at once
// (beyond, answered 503 at once); answers with a text, JSON or JavaScript type are compressed
// (gzip or brotli) for clients that accept it; requests are bounded in head size, header count,
// body size and time.
//
// Bounds on a request, and how one beyond is answered:
//   - a request line over 8 KiB: 414; a header line over 8 KiB: 400 (cpp-httplib's);
//   - more than 100 header lines, or a head (request line, headers and the blank line) over
//     64 KiB: 431 as soon as the line or byte past the bound arrives (414 when the request line
//     alone is that long), and the connection is closed;
//   - not read whole, head and body, within request_deadline (10 s) of its first byte: 408, and
//     the connection is closed;
//   - a body over max_body_bytes: 413, unread; chunked: 411; multipart: 415; each closing it.
// A kept-alive connection waits 5 s for its next request, and carries at most 100; a write may
// wait 5 s for the client to make room (an answer takes as long as it keeps progressing).

#ifndef PERFHIVE_EXPORT_HTTP_SERVER_H_
#define PERFHIVE_EXPORT_HTTP_SERVER_H_

#include <chrono>
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
  // Connections served at once, each by a thread of its own from its TLS handshake to its close
  // (kept alive up to 5 s idle between requests): no connection waits for a thread. Beyond, a
  // connection is answered 503 with Retry-After: 1 at once (over TLS, after a handshake of at
  // most 2 s), before its request is read, and closed. A browser alone keeps six connections.
  size_t max_connections = 64;
  // A request must have arrived whole, head and body, this long after its first byte: a client
  // that sends it slower (one header line now and then) is answered 408 and closed rather than
  // hold a connection. Writing the answer is not counted.
  std::chrono::milliseconds request_deadline = std::chrono::seconds(10);
};

class HttpServer {
 public:
  using Handler = std::function<HttpReply(const HttpRequest&)>;

  // Listens on `address`:`port` (port 0: a free one, see port()). `handler` runs on the
  // connections' threads, up to max_connections at once, never on the thread that accepts: it
  // must be thread-safe. An exception it throws is answered 500. A TLS certificate or key that
  // cannot be read or used is an error naming the file.
  static Result<std::unique_ptr<HttpServer>> Start(const std::string& address, uint16_t port,
                                                   Handler handler, HttpServerOptions options = {});
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const;
  // Closes the listener, lets the connections end and joins every thread. Idempotent. A
  // connection ends after the request it is serving (a handler that never returns keeps Stop
  // waiting; a request still arriving, until request_deadline); an idle kept-alive one within
  // 0.1 s.
  void Stop();

 private:
  struct State;
  explicit HttpServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_HTTP_SERVER_H_
