// The /metrics server on loopback: the page, 404 and 405, one render for scrapes that arrive
// together, and over HTTPS, scrapers a bearer token lets read (401 without one, 403 for a token
// that may not read).

#include "export/metrics_http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "export/http_client.h"
#include "export/metrics_text.h"
#include "tests/export/test_certificates.h"

namespace perfhive {
namespace {

using ::testing::HasSubstr;

constexpr const char* kPage = "# HELP up Up.\n# TYPE up gauge\nup 1\n";

TEST(MetricsHttpServerTest, ServesMetricsAnd404ElsewhereAnd405ForOtherMethods) {
  std::atomic<int> scrapes = 0;
  auto server = MetricsHttpServer::Start("127.0.0.1", 0, [&] {
    ++scrapes;
    return std::string(kPage);
  });
  ASSERT_TRUE(server.ok()) << server.error();
  std::string base = "http://127.0.0.1:" + std::to_string((*server)->port());
  {  // The clients keep their connections alive: closed before Stop, which would wait for them.
    HttpClient client({});
    Result<HttpResponse> metrics = client.Get(base + "/metrics");
    ASSERT_TRUE(metrics.ok()) << metrics.error();
    EXPECT_EQ(metrics->status, 200);
    EXPECT_EQ(metrics->body, kPage);
    EXPECT_EQ(scrapes, 1);

    httplib::Client raw("127.0.0.1", (*server)->port());
    httplib::Result typed = raw.Get("/metrics");
    ASSERT_TRUE(typed) << typed.error();
    EXPECT_EQ(typed->get_header_value("Content-Type"), MetricsText::kContentType);
    httplib::Result head = raw.Head("/metrics");
    ASSERT_TRUE(head) << head.error();
    EXPECT_EQ(head->status, 200);
    EXPECT_EQ(head->body, "");

    Result<HttpResponse> other = client.Get(base + "/other");
    ASSERT_TRUE(other.ok());
    EXPECT_EQ(other->status, 404);
    Result<HttpResponse> post = client.Post(base + "/metrics", "x", {});
    ASSERT_TRUE(post.ok());
    EXPECT_EQ(post->status, 405);
    httplib::Result put = raw.Put("/metrics", "x", "text/plain");
    ASSERT_TRUE(put) << put.error();
    EXPECT_EQ(put->status, 405);
    EXPECT_EQ(put->get_header_value("Allow"), "GET, HEAD");
    Result<HttpResponse> huge = client.Get(base + "/metrics?" + std::string(9000, 'a'));
    ASSERT_TRUE(huge.ok()) << huge.error();
    EXPECT_EQ(huge->status, 414);
    Result<HttpResponse> big_body = client.Post(base + "/metrics", std::string(70000, 'b'), {});
    ASSERT_TRUE(big_body.ok()) << big_body.error();
    EXPECT_EQ(big_body->status, 413);
    EXPECT_EQ(scrapes, 3);  // the two GETs and the HEAD
  }
  (*server)->Stop();
  HttpClientOptions quick;
  quick.connect_timeout = std::chrono::milliseconds(2000);
  HttpClient after(quick);
  EXPECT_FALSE(after.Get(base + "/metrics").ok());  // nothing listens any more
}

TEST(MetricsHttpServerTest, ScrapesDuringARenderWaitForItInsteadOfRenderingAgain) {
  std::mutex mutex;
  std::condition_variable changed;
  int renders = 0;
  int rendering = 0;
  int most_at_once = 0;
  bool release = false;
  auto server = MetricsHttpServer::Start("127.0.0.1", 0, [&] {
    std::unique_lock lock(mutex);
    ++renders;
    most_at_once = std::max(most_at_once, ++rendering);
    changed.notify_all();
    changed.wait(lock, [&] { return release; });
    --rendering;
    return std::string(kPage);
  });
  ASSERT_TRUE(server.ok()) << server.error();
  std::string url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/metrics";
  std::vector<std::thread> scrapers;
  std::vector<std::string> pages(5);
  auto scrape = [&](size_t i) {
    HttpClient client({});
    Result<HttpResponse> got = client.Get(url);
    if (got.ok() && got->status == 200) pages[i] = got->body;
  };
  scrapers.emplace_back(scrape, 0);
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(5), [&] { return rendering == 1; }));
  }
  for (size_t i = 1; i < pages.size(); ++i) scrapers.emplace_back(scrape, i);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the four reach the server
  {
    std::lock_guard lock(mutex);
    release = true;
    changed.notify_all();
  }
  for (std::thread& scraper : scrapers) scraper.join();
  for (const std::string& page : pages) EXPECT_EQ(page, kPage);
  std::lock_guard lock(mutex);
  EXPECT_EQ(most_at_once, 1);
  EXPECT_EQ(renders, 1);
}

TEST(MetricsHttpServerTest, OverHttpsABearerTokenDecidesWhoMayScrape) {
  testing::TestCertificates certificates;
  MetricsHttpOptions options;
  options.http = certificates.Https();
  options.authorize = [](std::string_view authorization) -> Status {
    if (authorization.empty()) {
      return Status(StatusCode::kUnauthenticated, "a bearer token is needed");
    }
    if (authorization == "Bearer reader") return Status();
    if (authorization == "Bearer writer") {
      return Status::PermissionDenied("token 'writer' may not read metrics");
    }
    return Status(StatusCode::kUnauthenticated, "unknown token");
  };
  auto server = MetricsHttpServer::Start(
      "127.0.0.1", 0, [] { return std::string(kPage); }, std::move(options));
  ASSERT_TRUE(server.ok()) << server.error();

  httplib::SSLClient client("127.0.0.1", (*server)->port());
  client.set_ca_cert_path(certificates.ca_file());
  client.enable_server_certificate_verification(true);
  httplib::Result anonymous = client.Get("/metrics");
  ASSERT_TRUE(anonymous) << anonymous.error();
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(anonymous->get_header_value("WWW-Authenticate"), "Bearer");
  EXPECT_EQ(anonymous->body, "a bearer token is needed\n");
  httplib::Result writer = client.Get("/metrics", {{"Authorization", "Bearer writer"}});
  ASSERT_TRUE(writer) << writer.error();
  EXPECT_EQ(writer->status, 403);
  EXPECT_THAT(writer->body, HasSubstr("may not read metrics"));
  httplib::Result reader = client.Get("/metrics", {{"Authorization", "Bearer reader"}});
  ASSERT_TRUE(reader) << reader.error();
  EXPECT_EQ(reader->status, 200);
  EXPECT_EQ(reader->body, kPage);

  // perfhive's own client (remote-write's, the CLI's) with the CA file and the token.
  HttpClientOptions https;
  https.ca_file = certificates.ca_file();
  https.bearer_token = "reader";
  HttpClient curl(https);
  std::string url = "https://127.0.0.1:" + std::to_string((*server)->port()) + "/metrics";
  Result<HttpResponse> scraped = curl.Get(url);
  ASSERT_TRUE(scraped.ok()) << scraped.error();
  EXPECT_EQ(scraped->status, 200);
  EXPECT_EQ(scraped->body, kPage);
  // Without the CA, the certificate is not trusted.
  HttpClient untrusting({});
  EXPECT_FALSE(untrusting.Get(url).ok());
}

}  // namespace
}  // namespace perfhive
