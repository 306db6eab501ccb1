// HttpServer over cpp-httplib on loopback: what a handler is given and what its reply becomes,
// keep-alive without Nagle's delays, compression, the limits on heads, bodies and a request's
// time, the cap on connections (503 at once beyond, sockets closed), handler exceptions, TLS, and
// Stop.

#include "export/http_server.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/export/test_certificates.h"

namespace perfhive {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct RawResponse {
  int status = 0;  // 0: no whole response came
  std::string head;
  std::string body;

  // A header's value from the head, the name in any case; empty when absent.
  std::string Header(std::string name) const {
    std::string lower_head = head;
    for (char& c : lower_head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t at = lower_head.find("\r\n" + name + ":");
    if (at == std::string::npos) return "";
    size_t start = head.find_first_not_of(' ', at + 3 + name.size());
    return head.substr(start, head.find("\r\n", start) - start);
  }
};

// A TLS client's settings: trusts the test CA alone, TLS 1.2 or later.
class TlsClient {
 public:
  explicit TlsClient(const std::string& ca_file) : context_(SSL_CTX_new(TLS_client_method())) {
    SSL_CTX_set_min_proto_version(context_, TLS1_2_VERSION);
    SSL_CTX_set_verify(context_, SSL_VERIFY_PEER, nullptr);
    EXPECT_EQ(SSL_CTX_load_verify_locations(context_, ca_file.c_str(), nullptr), 1);
  }
  ~TlsClient() { SSL_CTX_free(context_); }
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  SSL_CTX* context() const { return context_; }

 private:
  SSL_CTX* context_;
};

// One client connection to 127.0.0.1 (over TLS with a TlsClient's context), byte by byte: for
// what an HTTP client would not send or would hide (a head alone or sent slowly, several requests
// on one connection, the connection's end).
class RawConnection {
 public:
  explicit RawConnection(uint16_t port, SSL_CTX* tls = nullptr)
      : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    timeval timeout{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    if (connected_ && tls != nullptr) {
      ssl_ = SSL_new(tls);
      SSL_set_fd(ssl_, fd_);
      SSL_set_tlsext_host_name(ssl_, "localhost");
      connected_ = SSL_connect(ssl_) == 1;
    }
  }
  ~RawConnection() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }

  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t sent = ssl_ != nullptr ? SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()))
                                     : send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(sent));
    }
    return true;
  }

  // The next response (its body by Content-Length).
  RawResponse Read() {
    RawResponse response;
    size_t head_end;
    while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Receive()) return response;
    }
    std::string head = buffer_.substr(0, head_end + 2);
    buffer_.erase(0, head_end + 4);
    RawResponse parsed;
    parsed.head = head;
    std::string length = parsed.Header("Content-Length");
    size_t body_bytes = length.empty() ? 0 : std::stoul(length);
    while (buffer_.size() < body_bytes) {
      if (!Receive()) return response;
    }
    parsed.body = buffer_.substr(0, body_bytes);
    buffer_.erase(0, body_bytes);
    parsed.status = std::stoi(head.substr(head.find(' ') + 1, 3));
    return parsed;
  }

  // Whether the server has sent something (or closed) within `limit`.
  bool Answered(milliseconds limit) {
    if (!buffer_.empty() || (ssl_ != nullptr && SSL_pending(ssl_) > 0)) return true;
    pollfd entry{fd_, POLLIN, 0};
    return poll(&entry, 1, static_cast<int>(limit.count())) > 0;
  }

  // Whether the server ends the connection (within the 5 s receive timeout) with nothing more.
  bool EndedByServer() {
    char byte;
    if (ssl_ != nullptr) {
      int got = SSL_read(ssl_, &byte, 1);
      if (got > 0) return false;
      int error = SSL_get_error(ssl_, got);
      return error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE;
    }
    ssize_t got = recv(fd_, &byte, 1, 0);
    return got == 0 || (got < 0 && errno == ECONNRESET);
  }

 private:
  bool Receive() {
    char chunk[16384];
    ssize_t got =
        ssl_ != nullptr ? SSL_read(ssl_, chunk, sizeof chunk) : recv(fd_, chunk, sizeof chunk, 0);
    if (got <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(got));
    return true;
  }

  int fd_;
  SSL* ssl_ = nullptr;
  bool connected_ = false;
  std::string buffer_;
};

std::string Get(const std::string& path, const std::string& extra_headers = "") {
  return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra_headers + "\r\n";
}

size_t OpenDescriptors() {
  size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++count;
  }
  return count;
}

// Asks `done` every 10 ms until it holds or `limit` has passed.
bool WaitFor(const std::function<bool()>& done, milliseconds limit = milliseconds(5000)) {
  auto give_up = steady_clock::now() + limit;
  while (!done()) {
    if (steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return true;
}

// `count` header lines "X-Filler-<i>: vvv...", each value `value_bytes` long.
std::string Fillers(size_t count, size_t value_bytes = 1) {
  std::string lines;
  for (size_t i = 0; i < count; ++i) {
    lines += "X-Filler-" + std::to_string(i) + ": " + std::string(value_bytes, 'v') + "\r\n";
  }
  return lines;
}

// How a slow client fared.
struct Trickled {
  bool answered = false;  // the server answered or closed before the client gave up
  milliseconds after{};   // since the client's first byte
  int pieces = 0;         // sent after the first
};

// Sends `first`, then `piece(i)` every 250 ms, until the server answers or ends the connection,
// or `limit` has passed: a slowloris client.
Trickled Trickle(RawConnection& connection, const std::string& first,
                 const std::function<std::string(int)>& piece,
                 milliseconds limit = milliseconds(30000)) {
  Trickled result;
  auto started = steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration_cast<milliseconds>(steady_clock::now() - started);
  };
  if (!connection.Send(first)) return result;
  while (elapsed() < limit) {
    if (connection.Answered(milliseconds(250)) || !connection.Send(piece(result.pieces))) {
      result.answered = true;
      break;
    }
    ++result.pieces;
  }
  result.after = elapsed();
  return result;
}

std::string SlowHeader(int i) { return "X-Slow-" + std::to_string(i) + ": 1\r\n"; }

std::unique_ptr<HttpServer> StartOrDie(HttpServer::Handler handler,
                                       HttpServerOptions options = {}) {
  auto server = HttpServer::Start("127.0.0.1", 0, std::move(handler), std::move(options));
  EXPECT_TRUE(server.ok()) << server.error();
  return server.ok() ? std::move(server).value() : nullptr;
}

HttpReply Text(std::string body) { return {200, "text/plain; charset=utf-8", std::move(body), {}}; }

TEST(HttpRequestTest, HeadersIgnoreCaseAndParamsKeepEveryValueInOrder) {
  HttpRequest request;
  request.headers.emplace("Content-Type", "text/plain");
  request.headers.emplace("X-Forwarded-For", "10.0.0.1");
  request.headers.emplace("x-forwarded-for", "10.0.0.2");
  request.params.emplace("host", "web01");
  request.params.emplace("host", "db01");
  EXPECT_EQ(request.Header("content-type"), "text/plain");
  EXPECT_EQ(request.Header("CONTENT-TYPE"), "text/plain");
  EXPECT_EQ(request.Header("X-FORWARDED-FOR"), "10.0.0.1");
  EXPECT_EQ(request.Header("Content"), "");
  std::string_view kept = request.Header("content-type");  // into the request, not a temporary
  EXPECT_EQ(kept, "text/plain");
  EXPECT_EQ(request.Param("host"), "web01");
  EXPECT_THAT(request.Params("host"), ElementsAre("web01", "db01"));
  EXPECT_EQ(request.Param("Host"), "");
  EXPECT_TRUE(request.Params("other").empty());
}

TEST(HttpServerTest, GivesTheHandlerTheRequestAndSendsItsReply) {
  std::mutex mutex;
  std::vector<HttpRequest> seen;
  auto server = StartOrDie([&](const HttpRequest& request) {
    std::lock_guard lock(mutex);
    seen.push_back(request);
    return HttpReply{201,
                     "application/json",
                     "{}",
                     {{"Set-Cookie", "session=abc; HttpOnly"}, {"Cache-Control", "no-store"}}};
  });
  ASSERT_NE(server, nullptr);
  httplib::Client client("127.0.0.1", server->port());
  httplib::Result posted =
      client.Post("/hosts/web%2001?host=a&host=b&q=x%20y", {{"X-Custom", "yes"}},
                  "host=c&note=%C3%A9t%C3%A9", "application/x-www-form-urlencoded");
  ASSERT_TRUE(posted) << posted.error();
  EXPECT_EQ(posted->status, 201);
  EXPECT_EQ(posted->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(posted->get_header_value("Set-Cookie"), "session=abc; HttpOnly");
  EXPECT_EQ(posted->get_header_value("Cache-Control"), "no-store");
  EXPECT_EQ(posted->body, "{}");
  httplib::Result got = client.Get("/");
  ASSERT_TRUE(got) << got.error();

  std::lock_guard lock(mutex);
  ASSERT_EQ(seen.size(), 2u);
  const HttpRequest& post = seen[0];
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.path, "/hosts/web 01");
  EXPECT_THAT(post.Params("host"), ElementsAre("a", "b", "c"));  // query string, then the form
  EXPECT_EQ(post.Param("q"), "x y");
  EXPECT_EQ(post.Param("note"), "\xC3\xA9t\xC3\xA9");
  EXPECT_EQ(post.body, "host=c&note=%C3%A9t%C3%A9");
  EXPECT_EQ(post.Header("x-custom"), "yes");
  EXPECT_EQ(post.Header("REMOTE_ADDR"), "");  // httplib's own entries are not headers
  EXPECT_EQ(post.remote_address, "127.0.0.1");
  EXPECT_FALSE(post.tls);
  EXPECT_EQ(seen[1].method, "GET");
  EXPECT_EQ(seen[1].path, "/");
  EXPECT_TRUE(seen[1].body.empty());
}

TEST(HttpServerTest, KeepsAConnectionAliveWithoutWaitingForNagle) {
  int calls = 0;
  std::mutex mutex;
  auto server = StartOrDie([&](const HttpRequest&) {
    std::lock_guard lock(mutex);
    return Text("call " + std::to_string(++calls) + "\n");
  });
  ASSERT_NE(server, nullptr);
  RawConnection connection(server->port());
  ASSERT_TRUE(connection.connected());
  // Without TCP_NODELAY each answer (head and body written apart) waits 40 ms for the client's
  // delayed acknowledgement: 50 of them would take 2 s.
  constexpr int kRequests = 50;
  auto started = steady_clock::now();
  for (int i = 1; i <= kRequests; ++i) {
    ASSERT_TRUE(connection.Send(Get("/")));
    RawResponse response = connection.Read();
    ASSERT_EQ(response.status, 200) << "request " << i;
    EXPECT_EQ(response.body, "call " + std::to_string(i) + "\n");
    EXPECT_EQ(response.Header("Connection"), "");
  }
  EXPECT_LT(steady_clock::now() - started, milliseconds(1000));
}

TEST(HttpServerTest, CompressesLargeTextForClientsThatAcceptIt) {
  std::string page;
  for (int i = 0; page.size() < 200000; ++i)
    page += "pdh_up{host=\"h" + std::to_string(i) + "\"} 1\n";
  auto server = StartOrDie([&](const HttpRequest& request) {
    if (request.path == "/binary") return HttpReply{200, "application/octet-stream", page, {}};
    return Text(page);
  });
  ASSERT_NE(server, nullptr);
  httplib::Client client("127.0.0.1", server->port());
  for (const char* encoding : {"gzip", "br"}) {
    httplib::Result got = client.Get("/", {{"Accept-Encoding", encoding}});
    ASSERT_TRUE(got) << got.error();
    EXPECT_EQ(got->get_header_value("Content-Encoding"), encoding);
    EXPECT_EQ(got->body, page);  // the client decompressed it
  }
  // What the wire carried: far less than the page.
  RawConnection connection(server->port());
  ASSERT_TRUE(connection.Send(Get("/", "Accept-Encoding: gzip\r\n")));
  RawResponse raw = connection.Read();
  EXPECT_EQ(raw.Header("Content-Encoding"), "gzip");
  EXPECT_LT(raw.body.size(), page.size() / 4);
  // Not asked for, or not text: as it is.
  ASSERT_TRUE(connection.Send(Get("/")));
  raw = connection.Read();
  EXPECT_EQ(raw.Header("Content-Encoding"), "");
  EXPECT_EQ(raw.body, page);
  ASSERT_TRUE(connection.Send(Get("/binary", "Accept-Encoding: gzip\r\n")));
  raw = connection.Read();
  EXPECT_EQ(raw.Header("Content-Encoding"), "");
  EXPECT_EQ(raw.body.size(), page.size());
}

TEST(HttpServerTest, BoundsTheRequestHeadAt8KiBALine) {
  int calls = 0;
  std::mutex mutex;
  auto server = StartOrDie([&](const HttpRequest&) {
    std::lock_guard lock(mutex);
    ++calls;
    return Text("ok\n");
  });
  ASSERT_NE(server, nullptr);
  // cpp-httplib 0.11.4: a request line over 8 KiB is 414 URI Too Long, a header line over 8 KiB
  // 400 Bad Request; neither reaches the handler.
  RawConnection long_uri(server->port());
  ASSERT_TRUE(long_uri.Send(Get("/metrics?" + std::string(9000, 'a'))));
  EXPECT_EQ(long_uri.Read().status, 414);
  RawConnection long_header(server->port());
  ASSERT_TRUE(long_header.Send(Get("/metrics", "X-Long: " + std::string(9000, 'b') + "\r\n")));
  EXPECT_EQ(long_header.Read().status, 400);
  // Just under the limits: served.
  RawConnection near(server->port());
  ASSERT_TRUE(
      near.Send(Get("/?" + std::string(8000, 'a'), "X-Long: " + std::string(8000, 'b') + "\r\n")));
  EXPECT_EQ(near.Read().status, 200);
  std::lock_guard lock(mutex);
  EXPECT_EQ(calls, 1);
}

// Issue: 400,000 header lines of 75 bytes grew the server by 73 MB and were answered 200
// (cpp-httplib 0.11 bounds a header line's length only, and the handler saw the request after all
// were read).
TEST(HttpServerTest, HeaderLinesWithoutBoundAreAnswered431AndTheServerGoesOn) {
  std::atomic<int> calls{0};
  auto server = StartOrDie([&](const HttpRequest&) {
    ++calls;
    return Text("ok\n");
  });
  ASSERT_NE(server, nullptr);
  RawConnection flood(server->port());
  // The server answers after its 100th header line; the rest may find the connection closing.
  flood.Send(Get("/", Fillers(10000)));
  RawResponse refused = flood.Read();
  EXPECT_EQ(refused.status, 431);
  EXPECT_EQ(refused.Header("Connection"), "close");
  EXPECT_THAT(refused.body, HasSubstr("over 100 header lines"));
  EXPECT_TRUE(flood.EndedByServer());

  // 100 header lines (Host and 99) are served; 101 are not.
  RawConnection at_bound(server->port());
  ASSERT_TRUE(at_bound.Send(Get("/", Fillers(99))));
  EXPECT_EQ(at_bound.Read().status, 200);
  ASSERT_TRUE(at_bound.Send(Get("/", Fillers(100))));
  EXPECT_EQ(at_bound.Read().status, 431);
  EXPECT_EQ(calls, 1);

  // An honest client after the flood.
  httplib::Client client("127.0.0.1", server->port());
  httplib::Result got = client.Get("/");
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(calls, 2);
}

// Issue: the same flood in lines under cpp-httplib's 8 KiB each: the head's total is bounded too.
TEST(HttpServerTest, AHeadOver64KiBInLinesUnder8KiBIsAnswered431) {
  std::atomic<int> calls{0};
  auto server = StartOrDie([&](const HttpRequest&) {
    ++calls;
    return Text("ok\n");
  });
  ASSERT_NE(server, nullptr);
  RawConnection over(server->port());
  over.Send(Get("/", Fillers(10, 7000)));  // 70 KB
  RawResponse refused = over.Read();
  EXPECT_EQ(refused.status, 431);
  EXPECT_THAT(refused.body, HasSubstr("over 65536 bytes"));
  EXPECT_TRUE(over.EndedByServer());
  // A request line alone that long is one too long a URI.
  RawConnection long_uri(server->port());
  long_uri.Send(Get("/?" + std::string(70000, 'a')));
  EXPECT_EQ(long_uri.Read().status, 414);
  // Just under: served.
  RawConnection under(server->port());
  ASSERT_TRUE(under.Send(Get("/", Fillers(9, 7000))));  // 63 KB
  EXPECT_EQ(under.Read().status, 200);
  EXPECT_EQ(calls, 1);
}

// Issue: slow clients sending a header line every few seconds were served for as long as they kept
// sending (cpp-httplib's 5 s timeout is per read), each holding a connection.
TEST(HttpServerTest, ASlowlorisClientIsAnswered408AtTheRequestDeadline) {
  std::atomic<int> calls{0};
  HttpServerOptions options;
  options.request_deadline = std::chrono::seconds(2);
  auto server = StartOrDie(
      [&](const HttpRequest&) {
        ++calls;
        return Text("ok\n");
      },
      options);
  ASSERT_NE(server, nullptr);
  // A header line every 250 ms: no read waits long, the head never ends.
  RawConnection slow_head(server->port());
  Trickled head = Trickle(slow_head, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", SlowHeader);
  EXPECT_TRUE(head.answered) << "still sending after " << head.after.count() << " ms";
  EXPECT_LT(head.after, milliseconds(10000));
  RawResponse timed_out = slow_head.Read();
  EXPECT_EQ(timed_out.status, 408);
  EXPECT_EQ(timed_out.body, "request not received whole within 2 s\n");
  EXPECT_TRUE(slow_head.EndedByServer());

  // The same with a body, a byte every 250 ms: the deadline covers the whole request.
  RawConnection slow_body(server->port());
  Trickled body =
      Trickle(slow_body, "POST /write HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n",
              [](int) { return std::string("x"); });
  EXPECT_TRUE(body.answered) << "still sending after " << body.after.count() << " ms";
  EXPECT_LT(body.after, milliseconds(10000));
  EXPECT_EQ(slow_body.Read().status, 408);
  EXPECT_TRUE(slow_body.EndedByServer());
  EXPECT_EQ(calls, 0);

  // A client that sends its request at once, long after connecting, is served.
  RawConnection late(server->port());
  std::this_thread::sleep_for(milliseconds(2500));
  ASSERT_TRUE(late.Send(Get("/")));
  EXPECT_EQ(late.Read().status, 200);
}

// The deadline bounds reading the request, not writing the answer: a client that reads a large
// answer slowly gets all of it, as long as it keeps reading.
TEST(HttpServerTest, AnAnswerSlowerThanTheRequestDeadlineIsWrittenWhole) {
  std::string page(16 * 1024 * 1024, 'p');
  HttpServerOptions options;
  options.request_deadline = std::chrono::seconds(1);
  auto server = StartOrDie([&](const HttpRequest&) { return Text(page); }, options);
  ASSERT_NE(server, nullptr);
  RawConnection reader(server->port());
  ASSERT_TRUE(reader.Send(Get("/")));
  std::this_thread::sleep_for(milliseconds(1500));  // the server's socket buffers are full
  RawResponse got = reader.Read();
  EXPECT_EQ(got.status, 200);
  EXPECT_EQ(got.body.size(), page.size());
  ASSERT_TRUE(reader.Send(Get("/")));  // and the connection goes on
  EXPECT_EQ(reader.Read().status, 200);
}

TEST(HttpServerTest, RefusesABodyOverTheLimitUnreadAndClosesTheConnection) {
  std::mutex mutex;
  std::vector<std::string> bodies;
  HttpServerOptions options;
  options.max_body_bytes = 1000;
  auto server = StartOrDie(
      [&](const HttpRequest& request) {
        std::lock_guard lock(mutex);
        bodies.push_back(request.body);
        return Text("ok\n");
      },
      options);
  ASSERT_NE(server, nullptr);
  auto post = [](const std::string& headers, const std::string& body) {
    return "POST /write HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "\r\n" + body;
  };
  // At the limit: read and handled, and the connection goes on.
  RawConnection at_limit(server->port());
  ASSERT_TRUE(at_limit.Send(post("Content-Length: 1000\r\n", std::string(1000, 'x'))));
  EXPECT_EQ(at_limit.Read().status, 200);
  ASSERT_TRUE(at_limit.Send(Get("/")));
  EXPECT_EQ(at_limit.Read().status, 200);

  // Over it: the head alone is answered (the body is never waited for), then the connection ends.
  RawConnection over(server->port());
  auto started = steady_clock::now();
  ASSERT_TRUE(over.Send(post("Content-Length: 1001\r\n", "")));
  RawResponse refused = over.Read();
  EXPECT_EQ(refused.status, 413);
  EXPECT_THAT(refused.body, HasSubstr("over 1000 bytes"));
  EXPECT_TRUE(over.EndedByServer());
  EXPECT_LT(steady_clock::now() - started, milliseconds(2000));

  // Bodies whose size the head does not give, or that the method does not have.
  RawConnection chunked(server->port());
  ASSERT_TRUE(chunked.Send(post("Transfer-Encoding: chunked\r\n", "3\r\nabc\r\n0\r\n\r\n")));
  EXPECT_EQ(chunked.Read().status, 411);
  EXPECT_TRUE(chunked.EndedByServer());
  RawConnection get_with_body(server->port());
  ASSERT_TRUE(get_with_body.Send(Get("/", "Content-Length: 3\r\n") + "abc"));
  EXPECT_EQ(get_with_body.Read().status, 400);
  EXPECT_TRUE(get_with_body.EndedByServer());
  RawConnection two_lengths(server->port());
  ASSERT_TRUE(two_lengths.Send(post("Content-Length: 3\r\nContent-Length: 4\r\n", "abcd")));
  EXPECT_EQ(two_lengths.Read().status, 400);
  // A POST without Content-Length has no body.
  RawConnection no_length(server->port());
  ASSERT_TRUE(no_length.Send(post("", "")));
  EXPECT_EQ(no_length.Read().status, 200);

  std::lock_guard lock(mutex);
  ASSERT_EQ(bodies.size(), 3u);
  EXPECT_EQ(bodies[0], std::string(1000, 'x'));
  EXPECT_EQ(bodies[1], "");
  EXPECT_EQ(bodies[2], "");
}

TEST(HttpServerTest, AHandlerExceptionIsAnswered500AndTheServerGoesOn) {
  auto server = StartOrDie([](const HttpRequest& request) -> HttpReply {
    if (request.path == "/throw") throw std::runtime_error("secret detail");
    if (request.path == "/throw-int") throw 7;
    return Text("fine\n");
  });
  ASSERT_NE(server, nullptr);
  RawConnection connection(server->port());
  for (const char* path : {"/throw", "/throw-int"}) {
    ASSERT_TRUE(connection.Send(Get(path)));
    RawResponse failed = connection.Read();
    EXPECT_EQ(failed.status, 500);
    EXPECT_EQ(failed.body, "internal error\n");
    EXPECT_THAT(failed.head, ::testing::Not(HasSubstr("secret")));
  }
  ASSERT_TRUE(connection.Send(Get("/")));
  EXPECT_EQ(connection.Read().body, "fine\n");
}

// A handler that holds requests for /slow until released.
class Gate {
 public:
  HttpReply Handle(const HttpRequest& request) {
    std::unique_lock lock(mutex_);
    if (request.path == "/slow") {
      ++held_;
      changed_.notify_all();
      changed_.wait(lock, [&] { return open_; });
      --held_;
      return Text("slow\n");
    }
    ++quick_;
    return Text("quick\n");
  }
  bool WaitHeld(int count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(5), [&] { return held_ == count; });
  }
  void Open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  int quick() {
    std::lock_guard lock(mutex_);
    return quick_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int held_ = 0;
  int quick_ = 0;
  bool open_ = false;
};

TEST(HttpServerTest, TurnsAwayConnectionsBeyondTheCapAndServesAgainOnceTheyEnd) {
  Gate gate;
  HttpServerOptions options;
  options.max_connections = 2;
  auto server =
      StartOrDie([&](const HttpRequest& request) { return gate.Handle(request); }, options);
  ASSERT_NE(server, nullptr);
  auto slow1 = std::make_unique<RawConnection>(server->port());
  auto slow2 = std::make_unique<RawConnection>(server->port());
  ASSERT_TRUE(slow1->Send(Get("/slow")));
  ASSERT_TRUE(slow2->Send(Get("/slow")));
  ASSERT_TRUE(gate.WaitHeld(2));

  // A third connection: 503 at once, with Retry-After, and closed; the handler never sees it.
  auto started = steady_clock::now();
  RawConnection third(server->port());
  ASSERT_TRUE(third.Send(Get("/")));
  RawResponse busy = third.Read();
  EXPECT_EQ(busy.status, 503);
  EXPECT_EQ(busy.Header("Retry-After"), "1");
  EXPECT_TRUE(third.EndedByServer());
  EXPECT_LT(steady_clock::now() - started, milliseconds(1000));

  // Turned-away connections leave no socket behind (this process is the server too).
  size_t descriptors = OpenDescriptors();
  for (int i = 0; i < 20; ++i) {
    RawConnection turned_away(server->port());
    ASSERT_TRUE(turned_away.Send(Get("/")));
    EXPECT_EQ(turned_away.Read().status, 503);
  }
  EXPECT_TRUE(WaitFor([&] { return OpenDescriptors() <= descriptors; }))
      << OpenDescriptors() << " descriptors open, " << descriptors << " before";
  EXPECT_EQ(gate.quick(), 0);

  // The held requests finish; once their connections end, new ones are served.
  gate.Open();
  EXPECT_EQ(slow1->Read().body, "slow\n");
  EXPECT_EQ(slow2->Read().body, "slow\n");
  slow1.reset();
  slow2.reset();
  EXPECT_TRUE(WaitFor([&] {
    RawConnection again(server->port());
    return again.Send(Get("/")) && again.Read().status == 200;
  }));
  EXPECT_GE(gate.quick(), 1);
}

// Slow clients holding connections: each has sent the start of a request head and waits.
class SlowClients {
 public:
  SlowClients(uint16_t port, int count, SSL_CTX* tls = nullptr) {
    for (int i = 0; i < count; ++i) {
      clients_.push_back(std::make_unique<RawConnection>(port, tls));
      EXPECT_TRUE(clients_.back()->connected());
      EXPECT_TRUE(clients_.back()->Send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
    }
  }
  // Ends the first one's head: its answer's status.
  int FinishFirst() {
    if (!clients_.front()->Send("\r\n")) return 0;
    return clients_.front()->Read().status;
  }

 private:
  std::vector<std::unique_ptr<RawConnection>> clients_;
};

// Issue: 16 slow clients, each sending a header line every 3 s, held the 16 worker threads, and a
// 17th request waited behind them in the queue of admitted connections, unanswered for more than
// 10 s: every connection served now has a thread, and past the cap the answer is 503 at once.
TEST(HttpServerTest, SixteenSlowClientsLeaveTheSeventeenthServedAndOnesPastTheCap503AtOnce) {
  std::atomic<int> calls{0};
  HttpServerOptions options;
  options.request_deadline = std::chrono::seconds(60);  // the slow clients stay
  ASSERT_EQ(options.max_connections, 64u);
  auto server = StartOrDie(
      [&](const HttpRequest&) {
        ++calls;
        return Text("ok\n");
      },
      options);
  ASSERT_NE(server, nullptr);
  SlowClients sixteen(server->port(), 16);
  auto started = steady_clock::now();
  RawConnection seventeenth(server->port());
  ASSERT_TRUE(seventeenth.Send(Get("/")));
  EXPECT_EQ(seventeenth.Read().status, 200);  // within the client's 5 s receive timeout
  // It becomes a slow one too (else it would end after 5 s idle): with it, 64 are served.
  ASSERT_TRUE(seventeenth.Send("GET / HTTP/1.1\r\n"));
  SlowClients up_to_the_cap(server->port(), 64 - 16 - 1);
  RawConnection past_the_cap(server->port());
  ASSERT_TRUE(past_the_cap.Send(Get("/")));
  RawResponse busy = past_the_cap.Read();
  EXPECT_EQ(busy.status, 503);
  EXPECT_EQ(busy.Header("Retry-After"), "1");
  EXPECT_TRUE(past_the_cap.EndedByServer());
  EXPECT_LT(steady_clock::now() - started, milliseconds(10000));
  EXPECT_EQ(calls, 1);

  // The slow ones were being served all along.
  EXPECT_EQ(sixteen.FinishFirst(), 200);
  EXPECT_EQ(up_to_the_cap.FinishFirst(), 200);
  EXPECT_EQ(calls, 3);
}

TEST(HttpServerTest, StopIsPromptOnceClientsHaveClosedAndIsIdempotent) {
  auto server = StartOrDie([](const HttpRequest&) { return Text("ok\n"); });
  ASSERT_NE(server, nullptr);
  uint16_t port = server->port();
  {
    RawConnection closed(port);
    ASSERT_TRUE(closed.Send(Get("/")));
    EXPECT_EQ(closed.Read().status, 200);
  }
  auto started = steady_clock::now();
  server->Stop();
  EXPECT_LT(steady_clock::now() - started, milliseconds(1000));
  server->Stop();
  RawConnection after(port);
  EXPECT_FALSE(after.connected());
}

TEST(HttpServerTest, StopEndsAnIdleKeptAliveConnectionPromptly) {
  auto server = StartOrDie([](const HttpRequest&) { return Text("ok\n"); });
  ASSERT_NE(server, nullptr);
  RawConnection idle(server->port());
  ASSERT_TRUE(idle.Send(Get("/")));
  EXPECT_EQ(idle.Read().status, 200);
  // The wait for a connection's next request (up to 5 s) looks at the listener every 0.1 s.
  auto started = steady_clock::now();
  server->Stop();
  EXPECT_LT(steady_clock::now() - started, milliseconds(3000));
  EXPECT_TRUE(idle.EndedByServer());
}

TEST(HttpServerTest, APortInUseIsAnErrorNotAShare) {
  auto first = StartOrDie([](const HttpRequest&) { return Text("first\n"); });
  ASSERT_NE(first, nullptr);
  auto second =
      HttpServer::Start("127.0.0.1", first->port(), [](const HttpRequest&) { return Text(""); });
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error(), HasSubstr("cannot listen on 127.0.0.1:"));
  EXPECT_FALSE(HttpServer::Start("no.such.host.invalid", 0, [](const HttpRequest&) {
                 return Text("");
               }).ok());
}

TEST(HttpServerTest, ServesHttpsWithTheGivenCertificate) {
  testing::TestCertificates certificates;
  std::atomic<bool> over_tls{false};
  auto server = StartOrDie(
      [&](const HttpRequest& request) {
        over_tls = request.tls;
        return Text("secret\n");
      },
      certificates.Https());
  ASSERT_NE(server, nullptr);
  httplib::SSLClient client("127.0.0.1", server->port());
  client.set_ca_cert_path(certificates.ca_file());
  client.enable_server_certificate_verification(true);
  httplib::Result got = client.Get("/");
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->body, "secret\n");
  EXPECT_TRUE(over_tls);
  // Plain HTTP to it gets nothing.
  httplib::Client plain("127.0.0.1", server->port());
  plain.set_read_timeout(2, 0);
  httplib::Result refused = plain.Get("/");
  EXPECT_TRUE(!refused || refused->status != 200);
}

// The slowloris of ASlowlorisClientIsAnswered408AtTheRequestDeadline, over TLS.
TEST(HttpServerTest, OverTlsASlowlorisClientIsAnswered408AtTheRequestDeadline) {
  testing::TestCertificates certificates;
  TlsClient tls(certificates.ca_file());
  HttpServerOptions options = certificates.Https();
  options.request_deadline = std::chrono::seconds(2);
  auto server = StartOrDie([](const HttpRequest&) { return Text("ok\n"); }, options);
  ASSERT_NE(server, nullptr);
  RawConnection slow(server->port(), tls.context());
  ASSERT_TRUE(slow.connected());
  Trickled head = Trickle(slow, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", SlowHeader);
  EXPECT_TRUE(head.answered) << "still sending after " << head.after.count() << " ms";
  EXPECT_LT(head.after, milliseconds(10000));
  EXPECT_EQ(slow.Read().status, 408);
  EXPECT_TRUE(slow.EndedByServer());
  RawConnection honest(server->port(), tls.context());
  ASSERT_TRUE(honest.connected());
  ASSERT_TRUE(honest.Send(Get("/")));
  EXPECT_EQ(honest.Read().status, 200);
}

// The issue's own attack, over TLS as it was made: 16 slow clients leave a 17th served.
TEST(HttpServerTest, OverTlsSixteenSlowClientsLeaveTheSeventeenthServed) {
  testing::TestCertificates certificates;
  TlsClient tls(certificates.ca_file());
  HttpServerOptions options = certificates.Https();
  options.request_deadline = std::chrono::seconds(60);
  auto server = StartOrDie([](const HttpRequest&) { return Text("ok\n"); }, options);
  ASSERT_NE(server, nullptr);
  SlowClients sixteen(server->port(), 16, tls.context());
  RawConnection seventeenth(server->port(), tls.context());
  ASSERT_TRUE(seventeenth.connected());
  ASSERT_TRUE(seventeenth.Send(Get("/")));
  EXPECT_EQ(seventeenth.Read().status, 200);
  EXPECT_EQ(sixteen.FinishFirst(), 200);
}

// Past the cap over TLS: 503 after the handshake, at once.
TEST(HttpServerTest, OverTlsAConnectionPastTheCapIsAnswered503AtOnce) {
  testing::TestCertificates certificates;
  TlsClient tls(certificates.ca_file());
  HttpServerOptions options = certificates.Https();
  options.max_connections = 2;
  options.request_deadline = std::chrono::seconds(60);
  auto server = StartOrDie([](const HttpRequest&) { return Text("ok\n"); }, options);
  ASSERT_NE(server, nullptr);
  SlowClients both(server->port(), 2, tls.context());
  auto started = steady_clock::now();
  RawConnection third(server->port(), tls.context());
  ASSERT_TRUE(third.connected());
  ASSERT_TRUE(third.Send(Get("/")));
  RawResponse busy = third.Read();
  EXPECT_EQ(busy.status, 503);
  EXPECT_EQ(busy.Header("Retry-After"), "1");
  EXPECT_TRUE(third.EndedByServer());
  EXPECT_LT(steady_clock::now() - started, milliseconds(5000));
  EXPECT_EQ(both.FinishFirst(), 200);
}

TEST(HttpServerTest, TlsFilesThatCannotBeUsedAreErrorsNamingThem) {
  testing::TestCertificates certificates;
  auto start = [](const std::string& cert, const std::string& key) {
    HttpServerOptions options;
    options.tls_cert_file = cert;
    options.tls_key_file = key;
    return HttpServer::Start(
        "127.0.0.1", 0, [](const HttpRequest&) { return Text(""); }, options);
  };
  std::string missing = certificates.dir() + "/missing.pem";
  auto no_cert = start(missing, certificates.key_file());
  ASSERT_FALSE(no_cert.ok());
  EXPECT_THAT(no_cert.error(), HasSubstr("TLS certificate " + missing));

  std::string garbage = certificates.Write("garbage.key", "not a key\n");
  auto bad_key = start(certificates.cert_file(), garbage);
  ASSERT_FALSE(bad_key.ok());
  EXPECT_THAT(bad_key.error(), HasSubstr("TLS key " + garbage));

  // The CA's certificate with the server's key: the key is not the certificate's.
  auto mismatch = start(certificates.ca_file(), certificates.key_file());
  ASSERT_FALSE(mismatch.ok());
  EXPECT_THAT(mismatch.error(), HasSubstr("TLS key " + certificates.key_file()));

  auto half = start(certificates.cert_file(), "");
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(half.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace perfhive
