#include "export/metrics_http_server.h"

#include "export/metrics_text.h"

namespace perfhive {

Result<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(const std::string& address,
                                                                    uint16_t port,
                                                                    PageSource source) {
  // A scrape is a GET without a body: 8 KiB covers any sane request head.
  constexpr size_t kMaxRequestBytes = 8 * 1024;
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(
      address, port,
      [source = std::move(source)](const HttpRequest& request) -> HttpReply {
        if (request.path != "/metrics") return {404, "text/plain; charset=utf-8", "not found\n"};
        if (request.method != "GET" && request.method != "HEAD") {
          return {405, "text/plain; charset=utf-8", "only GET\n"};
        }
        return {200, MetricsText::kContentType, source()};
      },
      kMaxRequestBytes);
  if (!server.ok()) return server.status();
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(std::move(server).value()));
}

}  // namespace perfhive
