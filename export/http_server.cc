#include "export/http_server.h"

#include <fcntl.h>
#include <httplib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>

namespace perfhive {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Routing = httplib::Server::HandlerResponse;

// A kept-alive connection waits this long for its next request; a write this long for the client
// to make room.
constexpr Clock::duration kIdle = seconds(5);
// Requests one connection may carry: a browser's page and everything it loads.
constexpr size_t kRequestsPerConnection = 100;
// A request head's bounds, which cpp-httplib 0.11 lacks (it bounds each line at 8 KiB, and reads
// a longer one whole before it looks): browsers send about 20 header lines, under 8 KiB in all.
constexpr size_t kMaxHeaderLines = 100;
constexpr size_t kMaxHeadBytes = 64 * 1024;
// A served connection's TLS handshake, as long as cpp-httplib allowed each of its reads.
constexpr Clock::duration kHandshakeTime = seconds(5);
// A turned-away connection's TLS handshake, and then the write of its 503.
constexpr Clock::duration kTurnAwayTime = seconds(2);
// After answering a request whose remaining bytes the server will not read, it stops writing and
// reads what the client still sends for this long, at most this much, before closing: closing a
// socket with unread bytes resets the connection, and a reset can make the client drop the answer
// before it has read it.
constexpr Clock::duration kLingerTime = seconds(1);
constexpr size_t kMaxLingerBytes = 1024 * 1024;
// An idle connection's wait for its next request looks this often whether the server is stopping.
constexpr Clock::duration kStopCheck = milliseconds(100);
// Connections beyond max_connections wait for one of these threads to be turned away (503);
// beyond kMaxTurnedAwayWaiting of them, they are closed at once, unanswered over TLS, so that the
// accepting thread never waits.
constexpr size_t kTurnAwayThreads = 2;
constexpr size_t kMaxTurnedAwayWaiting = 64;
// cpp-httplib routes a request with a body by std::regex_match on its path, which libstdc++ runs
// by recursion, a frame per character: bounding that path bounds the stack it takes (under
// AddressSanitizer about 500 bytes a character).
constexpr size_t kMaxBodyRequestPath = 2048;
constexpr const char* kTextType = "text/plain; charset=utf-8";

// What a thread does with the connection it runs: serve it, answer it 503 (beyond
// max_connections), or close it at once (beyond the turned-away connections that may wait).
enum class Disposition { kServe, kTurnAway, kDrop };
// cpp-httplib 0.11's TaskQueue::enqueue is given a job that owns the accepted socket and calls
// process_and_close_socket with it: the queue tells that call what to do through this.
thread_local Disposition t_disposition = Disposition::kServe;

// The text after a status code in a status line.
const char* Reason(int status) {
  switch (status) {
    case 408:
      return "Request Timeout";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Error";
  }
}

// A whole answer with `status` and `text`, after which the server closes the connection.
std::string ClosingAnswer(int status, std::string_view text, std::string_view extra_headers = "") {
  std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + Reason(status) + "\r\n";
  answer += "Content-Type: " + std::string(kTextType) + "\r\n";
  answer += "Content-Length: " + std::to_string(text.size()) + "\r\n";
  answer += "Connection: close\r\n";
  answer += extra_headers;
  answer += "\r\n";
  answer += text;
  return answer;
}

// The poll events a TLS call that returned `result` waits for; 0 when it failed.
short TlsWaitsFor(SSL* ssl, int result) {
  switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_WANT_READ:
      return POLLIN;
    case SSL_ERROR_WANT_WRITE:
      return POLLOUT;
    default:
      return 0;
  }
}

// The poll events a plain socket call that failed with `error` waits for; 0 when it failed.
short SocketWaitsFor(int error) {
  return error == EAGAIN || error == EWOULDBLOCK || error == EINTR ? POLLIN | POLLOUT : 0;
}

// Waits until `socket` is ready for `events` or `until` has passed: 1 ready (or in error: the
// next call says which), 0 timed out, -1 poll failed.
int WaitUntil(int socket, short events, Clock::time_point until) {
  while (true) {
    Clock::duration left = until - Clock::now();
    int timeout = left <= Clock::duration::zero()
                      ? 0
                      : static_cast<int>(std::chrono::ceil<milliseconds>(left).count());
    pollfd entry{socket, events, 0};
    int ready = poll(&entry, 1, timeout);
    if (ready > 0) return 1;
    if (ready == 0 && Clock::now() >= until) return 0;
    if (ready < 0 && errno != EINTR) return -1;
  }
}

// "10 s", "1500 ms".
std::string Duration(Clock::duration duration) {
  auto count = std::chrono::ceil<milliseconds>(duration).count();
  return count % 1000 == 0 ? std::to_string(count / 1000) + " s" : std::to_string(count) + " ms";
}

// The address and port in `address`, as cpp-httplib gives them to requests.
void AddressAndPort(const sockaddr_storage& address, socklen_t length, std::string& ip, int& port) {
  if (address.ss_family == AF_INET) {
    port = ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
  } else if (address.ss_family == AF_INET6) {
    port = ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
  }
  std::array<char, NI_MAXHOST> text{};
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&address), length, text.data(), text.size(),
                  nullptr, 0, NI_NUMERICHOST) == 0) {
    ip = text.data();
  }
}

// One accepted connection, plain or TLS, as cpp-httplib's process_request reads and writes it,
// with the bounds cpp-httplib 0.11 lacks: while a request's head is read, on its number of lines
// and bytes; for the whole request, head and body, a deadline. A bound exceeded is answered here
// (431, 408), the read fails, and what cpp-httplib then writes (its own 400) is dropped: the
// connection is to be closed. Reads are buffered (cpp-httplib reads a head a byte at a time).
// The socket is made non-blocking: every wait is a poll with its own deadline.
class Connection : public httplib::Stream {
 public:
  // `tls` null: plain HTTP.
  Connection(int socket, SSL_CTX* tls) : socket_(socket) {
    fcntl(socket_, F_SETFL, fcntl(socket_, F_GETFL) | O_NONBLOCK);
    if (tls != nullptr) {
      ssl_ = SSL_new(tls);
      if (ssl_ == nullptr || SSL_set_fd(ssl_, socket_) != 1) broken_ = true;
    }
  }
  // Closes at once, unless Close has.
  ~Connection() override { Close(false); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The TLS handshake, by `until`; true at once for plain HTTP.
  bool Handshake(Clock::time_point until) {
    if (ssl_ == nullptr) return !broken_;
    while (!broken_) {
      ERR_clear_error();
      int result = SSL_accept(ssl_);
      if (result == 1) {
        handshake_done_ = true;
        return true;
      }
      short events = TlsWaitsFor(ssl_, result);
      if (events == 0 || WaitUntil(socket_, events, until) <= 0) broken_ = true;
    }
    return false;
  }

  // Waits for a request's first byte: true when there is one to read (or the client closed,
  // which reading then finds); false after kIdle, or once `listener` is closed (Stop).
  bool WaitForRequest(const std::atomic<int>& listener) {
    if (broken_ || read_failed_) return false;
    if (Buffered()) return true;
    Clock::time_point give_up = Clock::now() + kIdle;
    while (listener != INVALID_SOCKET) {
      int ready = WaitUntil(socket_, POLLIN, std::min(give_up, Clock::now() + kStopCheck));
      if (ready != 0) return ready > 0;
      if (Clock::now() >= give_up) break;
    }
    idle_ended_ = true;
    return false;
  }

  // A request begins: its head is bounded from here, and it must have been read whole within
  // `allowed`.
  void BeginRequest(Clock::duration allowed) {
    allowed_ = allowed;
    deadline_ = Clock::now() + allowed;
    in_head_ = true;
    head_lines_ = 0;
    head_bytes_ = 0;
  }
  // cpp-httplib has parsed the request's head: what it reads next is the body.
  void EndHead() { in_head_ = false; }

  // Answers `status` with `text` (and `extra_headers`, each ending in CRLF) for a connection
  // that is to be closed: reads fail from now on, and what cpp-httplib still writes is dropped.
  void Refuse(int status, std::string_view text, std::string_view extra_headers = "") {
    std::string answer = ClosingAnswer(status, text, extra_headers);
    WriteAll(answer.data(), answer.size());
    read_failed_ = true;
    refused_ = true;
  }

  // Whether the connection must end: a bound was exceeded, the client has closed or failed.
  bool ended() const { return broken_ || read_failed_; }
  bool refused() const { return refused_; }

  // A write's wait for room, kIdle unless shortened (for a turned-away connection).
  void set_write_patience(Clock::duration patience) { write_patience_ = patience; }

  // Ends TLS and closes the socket. With `linger`, when the client may still be sending (a
  // refused request or one whose body was left unread), first stops writing and reads what comes
  // for up to kLingerTime, so that the close does not reset the connection before the client has
  // read the answer. Once only.
  void Close(bool linger) {
    if (socket_ < 0) return;
    if (ssl_ != nullptr) {
      // close_notify, which a client may wait for; not awaited (it ends the stream, not the
      // answer).
      ERR_clear_error();
      if (handshake_done_ && !broken_) SSL_shutdown(ssl_);
    }
    if (linger && !broken_ && !peer_closed_) Linger();
    if (ssl_ != nullptr) SSL_free(ssl_);
    ssl_ = nullptr;
    shutdown(socket_, SHUT_RDWR);
    close(socket_);
    socket_ = -1;
  }

  // Whether the connection was idle when it ended: nothing the client sent is left unread.
  bool idle_ended() const { return idle_ended_; }

  bool is_readable() const override { return !ended() && Buffered(); }
  bool is_writable() const override {
    return !broken_ && WaitUntil(socket_, POLLOUT, Clock::now() + write_patience_) > 0;
  }

  ssize_t read(char* into, size_t size) override {
    if (ended() || size == 0) return -1;
    // Lines are counted by their end: cpp-httplib asks for a byte after the last allowed line
    // only when the head goes on. The request line and the blank line that ends the head are not
    // header lines.
    if (in_head_ && head_lines_ >= kMaxHeaderLines + 2) {
      Refuse(431, "request head over " + std::to_string(kMaxHeaderLines) + " header lines\n");
      return -1;
    }
    if (in_head_ && head_bytes_ >= kMaxHeadBytes) {
      std::string over = " over " + std::to_string(kMaxHeadBytes) + " bytes\n";
      Refuse(head_lines_ == 0 ? 414 : 431,
             (head_lines_ == 0 ? "request line" : "request head") + over);
      return -1;
    }
    if (begin_ == end_ && !Fill()) return -1;
    size_t count = std::min(size, end_ - begin_);
    if (in_head_) {
      count = std::min(count, kMaxHeadBytes - head_bytes_);
      const void* newline = std::memchr(buffer_.data() + begin_, '\n', count);
      if (newline != nullptr) {
        count = static_cast<const char*>(newline) - (buffer_.data() + begin_) + 1;
        ++head_lines_;
      }
      head_bytes_ += count;
    }
    std::memcpy(into, buffer_.data() + begin_, count);
    begin_ += count;
    return static_cast<ssize_t>(count);
  }

  using httplib::Stream::write;
  ssize_t write(const char* from, size_t size) override {
    if (refused_) return static_cast<ssize_t>(size);  // cpp-httplib's answer to the failed read
    if (broken_) return -1;
    if (size == 0) return 0;
    // TLS: a record's worth at a time, and a retry after a wait must repeat the same call.
    size_t chunk = std::min<size_t>(size, ssl_ != nullptr ? 16 * 1024 : INT_MAX);
    Clock::time_point give_up = Clock::now() + write_patience_;
    while (true) {
      ssize_t written;
      short events;
      if (ssl_ != nullptr) {
        ERR_clear_error();
        int result = SSL_write(ssl_, from, static_cast<int>(chunk));
        written = result;
        events = result > 0 ? 0 : TlsWaitsFor(ssl_, result);
      } else {
        written = send(socket_, from, chunk, MSG_NOSIGNAL);
        events = written >= 0 ? 0 : SocketWaitsFor(errno) & POLLOUT;
      }
      if (written > 0) return written;
      if (events == 0 || WaitUntil(socket_, events, give_up) <= 0) {
        broken_ = true;
        return -1;
      }
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (getpeername(socket_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      AddressAndPort(address, length, ip, port);
    }
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      AddressAndPort(address, length, ip, port);
    }
  }
  socket_t socket() const override { return socket_; }

 private:
  bool Buffered() const { return begin_ < end_ || (ssl_ != nullptr && SSL_pending(ssl_) > 0); }

  // Reads what has come into the empty buffer, waiting until the request's deadline (then
  // answered 408). False when nothing more can be read.
  bool Fill() {
    while (true) {
      ssize_t got;
      short events;
      if (ssl_ != nullptr) {
        ERR_clear_error();
        int result = SSL_read(ssl_, buffer_.data(), static_cast<int>(buffer_.size()));
        got = result;
        events = result > 0 ? 0 : TlsWaitsFor(ssl_, result);
      } else {
        got = recv(socket_, buffer_.data(), buffer_.size(), 0);
        events = got >= 0 ? 0 : SocketWaitsFor(errno) & POLLIN;
      }
      if (got > 0) {
        begin_ = 0;
        end_ = static_cast<size_t>(got);
        return true;
      }
      if (events == 0) {  // closed by the client, or failed: nothing to answer
        peer_closed_ = true;
        read_failed_ = true;
        return false;
      }
      int ready = WaitUntil(socket_, events, deadline_);
      if (ready == 0) {
        Refuse(408, "request not received whole within " + Duration(allowed_) + "\n");
        return false;
      }
      if (ready < 0) {
        broken_ = true;
        return false;
      }
    }
  }

  // Reads and drops what the client still sends, until it closes, kLingerTime has passed or
  // kMaxLingerBytes have come; the answer's bytes are sent meanwhile.
  void Linger() {
    shutdown(socket_, SHUT_WR);
    Clock::time_point give_up = Clock::now() + kLingerTime;
    size_t drained = 0;
    std::array<char, 16 * 1024> sink;
    while (drained < kMaxLingerBytes && WaitUntil(socket_, POLLIN, give_up) > 0) {
      ssize_t got = recv(socket_, sink.data(), sink.size(), 0);
      if (got == 0 || (got < 0 && SocketWaitsFor(errno) == 0)) return;
      if (got > 0) drained += static_cast<size_t>(got);
    }
  }

  // Writes all of `size` bytes at `from` (a refusal's answer), or breaks the connection.
  void WriteAll(const char* from, size_t size) {
    while (size > 0) {
      ssize_t written = write(from, size);
      if (written <= 0) return;
      from += written;
      size -= static_cast<size_t>(written);
    }
  }

  int socket_;
  SSL* ssl_ = nullptr;
  bool handshake_done_ = false;
  bool broken_ = false;       // the socket or TLS failed: nothing more can be written
  bool read_failed_ = false;  // nothing more is to be read
  bool peer_closed_ = false;
  bool refused_ = false;
  bool idle_ended_ = false;
  Clock::duration write_patience_ = kIdle;
  Clock::duration allowed_{};  // the request's time
  Clock::time_point deadline_ = Clock::time_point::max();
  bool in_head_ = false;
  size_t head_lines_ = 0;  // line ends read
  size_t head_bytes_ = 0;
  std::array<char, 16 * 1024> buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

// Runs the connections cpp-httplib accepts, each on a thread of its own at once, at most
// `capacity` of them; threads are started as connections need them and kept for the next ones.
// cpp-httplib 0.11's TaskQueue::enqueue returns nothing and its job owns the accepted socket,
// which it alone can close: a connection beyond the capacity cannot be dropped here, so its job
// runs on a turn-away thread (answered 503), or, when too many already wait for one, at once on
// the accepting thread to be closed unanswered (t_disposition says which).
class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(size_t capacity) : capacity_(capacity) {
    for (size_t i = 0; i < kTurnAwayThreads; ++i) {
      threads_.emplace_back(
          [this] { Run(turned_away_, turned_away_ready_, Disposition::kTurnAway); });
    }
  }
  ~ConnectionThreads() override { shutdown(); }

  void enqueue(std::function<void()> connection) override {
    std::unique_lock lock(mutex_);
    if (served_ < capacity_) {
      ++served_;
      admitted_.push_back(std::move(connection));
      // Every admitted connection has a thread: one that is free, or a new one.
      if (serving_threads_ < served_) {
        ++serving_threads_;
        threads_.emplace_back([this] { Run(admitted_, admitted_ready_, Disposition::kServe); });
      } else {
        admitted_ready_.notify_one();
      }
    } else if (turned_away_.size() < kMaxTurnedAwayWaiting) {
      turned_away_.push_back(std::move(connection));
      turned_away_ready_.notify_one();
    } else {
      lock.unlock();
      RunAs(connection, Disposition::kDrop);
    }
  }

  // After the listener has closed: every job still waiting runs (its socket is closed at once)
  // before the threads end.
  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      shutting_down_ = true;
    }
    admitted_ready_.notify_all();
    turned_away_ready_.notify_all();
    // No thread is started once shutting down: enqueue is called by the accepting thread only,
    // which has ended its loop.
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }

 private:
  static void RunAs(const std::function<void()>& connection, Disposition disposition) {
    t_disposition = disposition;
    connection();
    t_disposition = Disposition::kServe;
  }

  void Run(std::deque<std::function<void()>>& jobs, std::condition_variable& ready,
           Disposition disposition) {
    std::unique_lock lock(mutex_);
    while (true) {
      ready.wait(lock, [&] { return !jobs.empty() || shutting_down_; });
      if (jobs.empty()) return;
      std::function<void()> connection = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      RunAs(connection, disposition);
      lock.lock();
      if (disposition == Disposition::kServe) --served_;
    }
  }

  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable admitted_ready_;
  std::condition_variable turned_away_ready_;
  std::deque<std::function<void()>> admitted_;
  std::deque<std::function<void()>> turned_away_;
  size_t served_ = 0;           // admitted connections not yet closed
  size_t serving_threads_ = 0;  // threads that serve admitted connections, never fewer than served_
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
};

// A cpp-httplib server (Base: httplib::Server, or httplib::SSLServer for HTTPS) that runs each
// connection itself, through Connection, so that its requests are bounded (see Connection), and
// turns away what ConnectionThreads says is beyond the cap. cpp-httplib still accepts, parses,
// routes, compresses and writes the answers.
template <class Base>
class BoundedServer : public Base {
 public:
  template <class... Args>
  explicit BoundedServer(Clock::duration request_deadline, Args&&... args)
      : Base(std::forward<Args>(args)...), request_deadline_(request_deadline) {}

  // Once bound: a listen queue as deep as the system allows. cpp-httplib listens with a backlog
  // of 5, so a burst of connections (a console's page, or clients up to the connection cap)
  // overflowed it and the kernel dropped their handshakes to be tried again a second later:
  // connections the client saw open that the server had not yet counted toward its cap.
  void DeepenListenQueue() { ::listen(this->svr_sock_, SOMAXCONN); }

 private:
  static constexpr bool kTls = std::is_same_v<Base, httplib::SSLServer>;

  bool process_and_close_socket(socket_t socket) override {
    SSL_CTX* tls = nullptr;
    if constexpr (kTls) tls = this->ssl_context();
    Connection connection(socket, tls);
    switch (t_disposition) {
      case Disposition::kServe:
        return Serve(connection);
      case Disposition::kTurnAway:
        TurnAway(connection);
        return false;
      case Disposition::kDrop:
        // Best effort, never waiting: the accepting thread runs this.
        if (!kTls) {
          std::string answer = ClosingAnswer(503, kBusy, kRetryAfter);
          send(socket, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        }
        return false;
    }
    return false;
  }

  bool Serve(Connection& connection) {
    if (!connection.Handshake(Clock::now() + kHandshakeTime)) return false;
    bool ok = true;
    for (size_t served = 0; served < kRequestsPerConnection; ++served) {
      if (!connection.WaitForRequest(this->svr_sock_)) break;
      connection.BeginRequest(request_deadline_);
      bool close_asked = false;
      ok = this->process_request(connection, served + 1 == kRequestsPerConnection, close_asked,
                                 [&connection](httplib::Request&) { connection.EndHead(); });
      if (!ok || close_asked || connection.ended()) break;
    }
    // Bytes may be left unread unless the connection ended idle (a body refused unread, a
    // pipelined request beyond the last).
    connection.Close(!connection.idle_ended());
    return ok && !connection.refused();
  }

  static void TurnAway(Connection& connection) {
    Clock::time_point give_up = Clock::now() + kTurnAwayTime;
    if (!connection.Handshake(give_up)) return;
    connection.set_write_patience(give_up - Clock::now());
    connection.Refuse(503, kBusy, kRetryAfter);
    connection.Close(true);
  }

  static constexpr const char* kBusy = "too many connections, try again\n";
  static constexpr const char* kRetryAfter = "Retry-After: 1\r\n";

  const Clock::duration request_deadline_;
};

// Answers `status` with `text` and closes the connection, whose request may have more bytes
// unread. cpp-httplib 0.11 ends a kept-alive connection only when writing an answer fails: the
// text goes out through a content provider that reports a failure once it has written it all.
void AnswerAndClose(httplib::Response& response, int status, std::string text) {
  response.status = status;
  response.set_header("Connection", "close");
  auto body = std::make_shared<const std::string>(std::move(text));
  response.set_content_provider(
      body->size(), kTextType, [body](size_t offset, size_t length, httplib::DataSink& sink) {
        if (offset < body->size()) {
          sink.write(body->data() + offset, std::min(length, body->size() - offset));
        }
        return false;
      });
}

// Why a request is answered before its body is read, its connection then closed.
struct Refusal {
  int status = 0;
  std::string text;
};

// cpp-httplib reads the body of these methods only; another's would be taken for the next
// request.
bool BodyIsRead(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

// Whether a body follows the head, or why the request is refused.
std::optional<Refusal> CheckBody(const httplib::Request& request, size_t max_body_bytes,
                                 bool* has_body) {
  *has_body = false;
  // cpp-httplib 0.11 bounds no chunked body: only bodies of a known length are taken.
  if (request.has_header("Transfer-Encoding")) {
    return Refusal{411, "a request body needs a Content-Length\n"};
  }
  size_t count = request.get_header_value_count("Content-Length");
  if (count == 0) return std::nullopt;
  std::string text = request.get_header_value("Content-Length");
  size_t length = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), length);
  if (count > 1 || error != std::errc() || end != text.data() + text.size()) {
    return Refusal{400, "bad Content-Length\n"};
  }
  if (length == 0) return std::nullopt;
  if (length > max_body_bytes) {
    return Refusal{413, "request body over " + std::to_string(max_body_bytes) + " bytes\n"};
  }
  if (!BodyIsRead(request.method)) return Refusal{400, "a " + request.method + " has no body\n"};
  if (request.is_multipart_form_data()) return Refusal{415, "multipart bodies are not taken\n"};
  if (request.path.size() > kMaxBodyRequestPath) {
    return Refusal{414, "path too long for a request with a body\n"};
  }
  *has_body = true;
  return std::nullopt;
}

// cpp-httplib adds the connection's addresses to the request's headers under these names.
bool AddedByHttplib(const std::string& name) {
  return name == "REMOTE_ADDR" || name == "REMOTE_PORT" || name == "LOCAL_ADDR" ||
         name == "LOCAL_PORT";
}

HttpRequest ToRequest(const httplib::Request& from, bool tls) {
  HttpRequest request;
  request.method = from.method;
  request.path = from.path;
  request.params = from.params;
  request.body = from.body;
  request.remote_address = from.remote_addr;
  request.tls = tls;
  for (const auto& [name, value] : from.headers) {
    if (!AddedByHttplib(name)) request.headers.emplace(name, value);
  }
  return request;
}

HttpReply Call(const HttpServer::Handler& handler, const HttpRequest& request) {
  try {
    HttpReply reply = handler(request);
    if (reply.status >= 100 && reply.status <= 599) return reply;
  } catch (...) {
    // The handler's failure is this request's alone: the connection and the server go on.
  }
  return HttpReply{500, kTextType, "internal error\n", {}};
}

void Answer(const HttpServer::Handler& handler, const httplib::Request& request, bool tls,
            httplib::Response& response) {
  HttpReply reply = Call(handler, ToRequest(request, tls));
  response.status = reply.status;
  for (const auto& [name, value] : reply.headers) response.set_header(name, value);
  if (!reply.body.empty()) {
    response.set_header("Content-Type", reply.content_type);
    response.body = std::move(reply.body);
  }
}

// OpenSSL's reason for the first error in its queue, which it empties.
std::string OpenSslReason() {
  const char* reason = ERR_reason_error_string(ERR_peek_error());
  ERR_clear_error();
  return reason != nullptr ? reason : "unknown error";
}

// Loads the certificate chain and its key into `context`, for TLS 1.2 or later; an error names
// the file at fault.
Status LoadCertificate(SSL_CTX& context, const HttpServerOptions& options) {
  SSL_CTX_set_min_proto_version(&context, TLS1_2_VERSION);
  SSL_CTX_set_options(&context, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  const std::string& certificate = options.tls_cert_file;
  const std::string& key = options.tls_key_file;
  if (SSL_CTX_use_certificate_chain_file(&context, certificate.c_str()) != 1) {
    return Status::InvalidArgument("TLS certificate " + certificate + ": " + OpenSslReason());
  }
  if (SSL_CTX_use_PrivateKey_file(&context, key.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(&context) != 1) {
    return Status::InvalidArgument("TLS key " + key + " (for " + certificate +
                                   "): " + OpenSslReason());
  }
  return Status();
}

}  // namespace

bool HeaderNameLess::operator()(std::string_view a, std::string_view b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) <
           std::tolower(static_cast<unsigned char>(y));
  });
}

const std::string& HttpRequest::Header(std::string_view name) const {
  static const std::string kAbsent;
  auto found = headers.find(name);
  return found == headers.end() ? kAbsent : found->second;
}

const std::string& HttpRequest::Param(std::string_view name) const {
  static const std::string kAbsent;
  auto found = params.find(std::string(name));
  return found == params.end() ? kAbsent : found->second;
}

std::vector<std::string> HttpRequest::Params(std::string_view name) const {
  std::vector<std::string> values;
  auto [begin, end] = params.equal_range(std::string(name));
  for (auto it = begin; it != end; ++it) values.push_back(it->second);
  return values;
}

struct HttpServer::State {
  Handler handler;
  HttpServerOptions options;
  bool tls = false;
  std::unique_ptr<httplib::Server> server;
  std::function<void()> deepen_listen_queue;  // the server's DeepenListenQueue
  uint16_t port = 0;
  std::thread listener;
  std::atomic<bool> listener_done{false};
  std::mutex stop_mutex;

  // Every request passes here before its body is read: refused for its body, or, without one,
  // answered at once; a request with a body goes on to be read and answered by the routes.
  Routing Screen(const httplib::Request& request, httplib::Response& response) {
    bool has_body = false;
    if (std::optional<Refusal> refusal = CheckBody(request, options.max_body_bytes, &has_body)) {
      AnswerAndClose(response, refusal->status, std::move(refusal->text));
      return Routing::Handled;
    }
    if (has_body) return Routing::Unhandled;
    Answer(handler, request, tls, response);
    return Routing::Handled;
  }

  void Configure() {
    // cpp-httplib's default sets SO_REUSEPORT, with which a second server could bind the same
    // port and take half its connections; SO_REUSEADDR alone lets a restart bind while old
    // connections linger. Debian's build leaves TCP_NODELAY off: small answers on a kept-alive
    // connection would then wait 40 ms for Nagle and delayed acknowledgements. Linux gives
    // accepted sockets the listener's TCP_NODELAY.
    server->set_socket_options([](socket_t socket) {
      int on = 1;
      setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
      setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    });
    // Keep-alive, timeouts and the connection cap are BoundedServer's and ConnectionThreads'.
    server->set_payload_max_length(options.max_body_bytes);
    size_t capacity = std::max<size_t>(options.max_connections, 1);
    server->new_task_queue = [capacity] { return new ConnectionThreads(capacity); };
    server->set_pre_routing_handler(
        [this](const httplib::Request& request, httplib::Response& response) {
          return Screen(request, response);
        });
    auto read_body = [this](const httplib::Request& request, httplib::Response& response) {
      Answer(handler, request, tls, response);
    };
    // Any path: the handler routes. (Screen has bounded its length, see kMaxBodyRequestPath.)
    const std::string any = "[\\s\\S]*";
    server->Post(any, read_body).Put(any, read_body).Patch(any, read_body);
    server->Delete(any, read_body);
    server->set_exception_handler(
        [](const httplib::Request&, httplib::Response& response, std::exception_ptr) {
          response.status = 500;
          response.set_content("internal error\n", kTextType);
        });
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& address, uint16_t port,
                                                      Handler handler, HttpServerOptions options) {
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return Status::InvalidArgument("HTTPS needs both a certificate file and its key file");
  }
  auto state = std::make_unique<State>();
  state->handler = std::move(handler);
  state->options = options;
  state->tls = !options.tls_cert_file.empty();
  if (state->tls) {
    Status loaded;
    auto server = std::make_unique<BoundedServer<httplib::SSLServer>>(
        options.request_deadline, [&](SSL_CTX& context) {
          loaded = LoadCertificate(context, options);
          return loaded.ok();
        });
    if (!server->is_valid()) {
      return loaded.ok() ? Status::Internal("cannot set up TLS: " + OpenSslReason()) : loaded;
    }
    state->deepen_listen_queue = [raw = server.get()] { raw->DeepenListenQueue(); };
    state->server = std::move(server);
  } else {
    auto server = std::make_unique<BoundedServer<httplib::Server>>(options.request_deadline);
    state->deepen_listen_queue = [raw = server.get()] { raw->DeepenListenQueue(); };
    state->server = std::move(server);
  }
  state->Configure();

  errno = 0;
  int bound = port == 0 ? state->server->bind_to_any_port(address)
                        : (state->server->bind_to_port(address, port) ? port : -1);
  if (bound <= 0) {
    int error = errno;
    return Status::Unavailable("cannot listen on " + address + ":" + std::to_string(port) + ": " +
                               (error != 0 ? std::strerror(error) : "not an address of this host"));
  }
  state->port = static_cast<uint16_t>(bound);
  state->deepen_listen_queue();
  State* raw = state.get();
  state->listener = std::thread([raw] {
    raw->server->listen_after_bind();
    raw->listener_done = true;
  });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(state)));
}

HttpServer::HttpServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

HttpServer::~HttpServer() { Stop(); }

uint16_t HttpServer::port() const { return state_->port; }

void HttpServer::Stop() {
  std::lock_guard lock(state_->stop_mutex);
  if (!state_->listener.joinable()) return;
  // cpp-httplib's stop() does nothing until its accept loop has begun, and must be called once:
  // wait for the loop, unless it has already ended on its own.
  while (!state_->listener_done) {
    if (state_->server->is_running()) {
      state_->server->stop();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  state_->listener.join();
}

}  // namespace perfhive
