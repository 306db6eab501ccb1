// MetricsHttpServer: serves GET /metrics with the page a callback renders (the Prometheus text
// format, see MetricsText), over HTTP or HTTPS, to the scrapers an authorization callback lets
// read; 404 for any other path, 405 for other methods on /metrics.

#ifndef PERFHIVE_EXPORT_METRICS_HTTP_SERVER_H_
#define PERFHIVE_EXPORT_METRICS_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "export/http_server.h"

namespace perfhive {

// How the /metrics server listens and whom it lets scrape.
struct MetricsHttpOptions {
  HttpServerOptions http{};  // TLS, limits
  // Decides whether a scrape may read, from its Authorization header's value (possibly empty).
  // UNAUTHENTICATED is answered 401 (with WWW-Authenticate: Bearer), PERMISSION_DENIED 403,
  // another error 500, each with the status's message. Null: anyone may scrape.
  std::function<Status(std::string_view authorization)> authorize{};
};

class MetricsHttpServer {
 public:
  // Renders the whole page. Called on the server's worker threads, never twice at once: scrapes
  // that arrive during a render wait for it and answer its page.
  using PageSource = std::function<std::string()>;

  // Listens on `address`:`port` (0: a free port).
  static Result<std::unique_ptr<MetricsHttpServer>> Start(const std::string& address, uint16_t port,
                                                          PageSource source,
                                                          MetricsHttpOptions options = {});

  uint16_t port() const { return server_->port(); }
  void Stop() { server_->Stop(); }

 private:
  explicit MetricsHttpServer(std::unique_ptr<HttpServer> server) : server_(std::move(server)) {}
  std::unique_ptr<HttpServer> server_;
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_METRICS_HTTP_SERVER_H_
