// HttpServer: a small HTTP/1.1 server on its own thread for the /metrics endpoint and the tests'
// stand-in receivers. One request per connection (Connection: close), requests bounded in size
// and time, a handler called on the server's thread.

#ifndef PERFHIVE_EXPORT_HTTP_SERVER_H_
#define PERFHIVE_EXPORT_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "perfdata/status.h"

namespace perfhive {

struct HttpRequest {
  std::string method;  // "GET"
  std::string path;    // "/metrics", without the query string
  std::string body;
  std::string headers;  // the header lines as received, for handlers that look at one
};

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  using Handler = std::function<HttpReply(const HttpRequest&)>;

  // Listens on `address`:`port` (port 0: a free one, see port()). A request larger than
  // `max_request_bytes` (head and body) is answered 413 (431 for the head alone) unread.
  static Result<std::unique_ptr<HttpServer>> Start(const std::string& address, uint16_t port,
                                                   Handler handler,
                                                   size_t max_request_bytes = 64 * 1024);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const;
  // Closes the listener and every connection and joins the thread.
  void Stop();

 private:
  struct State;
  explicit HttpServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_HTTP_SERVER_H_
