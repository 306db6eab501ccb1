#include "export/http_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

namespace perfhive {
namespace {

using Routing = httplib::Server::HandlerResponse;

// A kept-alive connection waits this long for its next request; a read or a write this long for
// progress.
constexpr time_t kIdleSeconds = 5;
// Requests one connection may carry: a browser's page and everything it loads.
constexpr size_t kRequestsPerConnection = 100;
// Connections beyond max_connections wait for one of these threads to be turned away; beyond
// kMaxTurnedAwayWaiting of them, the accepting thread turns them away itself and accepts nothing
// meanwhile (the kernel's backlog holds the rest).
constexpr size_t kTurnAwayThreads = 2;
constexpr size_t kMaxTurnedAwayWaiting = 64;
// cpp-httplib routes a request with a body by std::regex_match on its path, which libstdc++ runs
// by recursion, a frame per character: bounding that path bounds the stack it takes (under
// AddressSanitizer about 500 bytes a character).
constexpr size_t kMaxBodyRequestPath = 2048;
constexpr const char* kTextType = "text/plain; charset=utf-8";

// Set on a thread that runs a connection beyond max_connections: its request is answered 503.
thread_local bool t_turning_away = false;

// Runs the connections cpp-httplib accepts, at most `capacity` at once (served, or waiting for
// one of the worker threads). cpp-httplib 0.11's TaskQueue::enqueue returns nothing and its job
// owns the accepted socket, which it alone can close: a connection beyond the capacity cannot be
// dropped, so its job runs on a turn-away thread, where the request is answered 503 before any
// body is read and the connection closed.
class ConnectionQueue : public httplib::TaskQueue {
 public:
  ConnectionQueue(size_t workers, size_t capacity) : capacity_(capacity) {
    for (size_t i = 0; i < workers; ++i) {
      threads_.emplace_back([this] { Run(admitted_, admitted_ready_, false); });
    }
    for (size_t i = 0; i < kTurnAwayThreads; ++i) {
      threads_.emplace_back([this] { Run(turned_away_, turned_away_ready_, true); });
    }
  }
  ~ConnectionQueue() override { shutdown(); }

  void enqueue(std::function<void()> connection) override {
    std::unique_lock lock(mutex_);
    if (active_ < capacity_) {
      ++active_;
      admitted_.push_back(std::move(connection));
      admitted_ready_.notify_one();
    } else if (turned_away_.size() < kMaxTurnedAwayWaiting) {
      turned_away_.push_back(std::move(connection));
      turned_away_ready_.notify_one();
    } else {
      lock.unlock();
      TurnAway(connection);
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
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
  }

 private:
  static void TurnAway(const std::function<void()>& connection) {
    t_turning_away = true;
    connection();
    t_turning_away = false;
  }

  void Run(std::deque<std::function<void()>>& jobs, std::condition_variable& ready,
           bool turn_away) {
    std::unique_lock lock(mutex_);
    while (true) {
      ready.wait(lock, [&] { return !jobs.empty() || shutting_down_; });
      if (jobs.empty()) return;
      std::function<void()> connection = std::move(jobs.front());
      jobs.pop_front();
      lock.unlock();
      if (turn_away) {
        TurnAway(connection);
      } else {
        connection();
      }
      lock.lock();
      if (!turn_away) --active_;
    }
  }

  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable admitted_ready_;
  std::condition_variable turned_away_ready_;
  std::deque<std::function<void()>> admitted_;
  std::deque<std::function<void()>> turned_away_;
  size_t active_ = 0;  // admitted connections, served or waiting
  bool shutting_down_ = false;
  std::vector<std::thread> threads_;
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
  uint16_t port = 0;
  std::thread listener;
  std::atomic<bool> listener_done{false};
  std::mutex stop_mutex;

  // Every request passes here before its body is read: turned away beyond max_connections,
  // refused for its body, or, without one, answered at once; a request with a body goes on to
  // be read and answered by the routes.
  Routing Screen(const httplib::Request& request, httplib::Response& response) {
    if (t_turning_away) {
      AnswerAndClose(response, 503, "too many connections, try again\n");
      response.set_header("Retry-After", "1");
      return Routing::Handled;
    }
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
    server->set_keep_alive_max_count(kRequestsPerConnection);
    server->set_keep_alive_timeout(kIdleSeconds);
    server->set_read_timeout(kIdleSeconds, 0);
    server->set_write_timeout(kIdleSeconds, 0);
    server->set_payload_max_length(options.max_body_bytes);
    size_t capacity = std::max<size_t>(options.max_connections, 1);
    size_t workers = options.worker_threads;
    if (workers == 0) workers = std::max<size_t>(16, std::thread::hardware_concurrency());
    workers = std::min(workers, capacity);
    server->new_task_queue = [workers, capacity] { return new ConnectionQueue(workers, capacity); };
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
    auto server = std::make_unique<httplib::SSLServer>([&](SSL_CTX& context) {
      loaded = LoadCertificate(context, options);
      return loaded.ok();
    });
    if (!server->is_valid()) {
      return loaded.ok() ? Status::Internal("cannot set up TLS: " + OpenSslReason()) : loaded;
    }
    state->server = std::move(server);
  } else {
    state->server = std::make_unique<httplib::Server>();
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
