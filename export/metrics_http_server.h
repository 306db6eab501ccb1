// MetricsHttpServer: serves GET /metrics with the page a callback renders (the Prometheus text
// format, see MetricsText); 404 for any other path, 405 for other methods on /metrics.

#ifndef PERFHIVE_EXPORT_METRICS_HTTP_SERVER_H_
#define PERFHIVE_EXPORT_METRICS_HTTP_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "export/http_server.h"
#include "perfdata/status.h"

namespace perfhive {

class MetricsHttpServer {
 public:
  // Renders the whole page; called on the server's thread, once per scrape.
  using PageSource = std::function<std::string()>;

  // Listens on `address`:`port` (0: a free port).
  static Result<std::unique_ptr<MetricsHttpServer>> Start(const std::string& address, uint16_t port,
                                                          PageSource source);

  uint16_t port() const { return server_->port(); }
  void Stop() { server_->Stop(); }

 private:
  explicit MetricsHttpServer(std::unique_ptr<HttpServer> server) : server_(std::move(server)) {}
  std::unique_ptr<HttpServer> server_;
};

}  // namespace perfhive

#endif  // PERFHIVE_EXPORT_METRICS_HTTP_SERVER_H_
