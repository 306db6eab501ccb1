#include "export/metrics_http_server.h"

#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "export/metrics_text.h"

namespace perfhive {
namespace {

constexpr const char* kTextType = "text/plain; charset=utf-8";

// One render at a time, since a render computes every host's latest values: a scrape that
// arrives while one is under way waits for it and answers its page instead of starting another.
class SharedRender {
 public:
  explicit SharedRender(MetricsHttpServer::PageSource source) : source_(std::move(source)) {}

  // The page; null when the render threw.
  std::shared_ptr<const std::string> Page() {
    std::unique_lock lock(mutex_);
    if (rendering_) {
      uint64_t awaited = renders_ + 1;
      done_.wait(lock, [&] { return renders_ >= awaited; });
      return page_;
    }
    rendering_ = true;
    lock.unlock();
    std::shared_ptr<const std::string> page;
    try {
      page = std::make_shared<const std::string>(source_());
    } catch (...) {
      // Answered 500, to the waiting scrapes too; the next scrape renders again.
    }
    lock.lock();
    rendering_ = false;
    ++renders_;
    page_ = page;
    done_.notify_all();
    return page;
  }

 private:
  const MetricsHttpServer::PageSource source_;
  std::mutex mutex_;
  std::condition_variable done_;
  bool rendering_ = false;
  uint64_t renders_ = 0;                     // finished
  std::shared_ptr<const std::string> page_;  // the latest render's
};

HttpReply Refused(const Status& status) {
  std::string text = status.message() + "\n";
  switch (status.code()) {
    case StatusCode::kUnauthenticated:
      return {401, kTextType, std::move(text), {{"WWW-Authenticate", "Bearer"}}};
    case StatusCode::kPermissionDenied:
      return {403, kTextType, std::move(text), {}};
    default:
      return {500, kTextType, std::move(text), {}};
  }
}

}  // namespace

Result<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(const std::string& address,
                                                                    uint16_t port,
                                                                    PageSource source,
                                                                    MetricsHttpOptions options) {
  auto render = std::make_shared<SharedRender>(std::move(source));
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(
      address, port,
      [render, authorize = std::move(options.authorize)](const HttpRequest& request) -> HttpReply {
        if (request.path != "/metrics") return {404, kTextType, "not found\n", {}};
        if (request.method != "GET" && request.method != "HEAD") {
          return {405, kTextType, "only GET and HEAD\n", {{"Allow", "GET, HEAD"}}};
        }
        if (authorize) {
          Status allowed = authorize(request.Header("Authorization"));
          if (!allowed.ok()) return Refused(allowed);
        }
        std::shared_ptr<const std::string> page = render->Page();
        if (page == nullptr) return {500, kTextType, "the page could not be rendered\n", {}};
        return {200, MetricsText::kContentType, *page, {}};
      },
      std::move(options.http));
  if (!server.ok()) return server.status();
  return std::unique_ptr<MetricsHttpServer>(new MetricsHttpServer(std::move(server).value()));
}

}  // namespace perfhive
