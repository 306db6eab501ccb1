#include "export/http_server.h"

#include <asio.hpp>
#include <cctype>
#include <charconv>
#include <thread>

namespace perfhive {
namespace {

constexpr std::chrono::seconds kConnectionDeadline{10};

const char* Reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Content Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

// The value of header `name` (lower case) in `headers`, "" when absent.
std::string HeaderValue(const std::string& headers, std::string_view name) {
  size_t line_start = 0;
  while (line_start < headers.size()) {
    size_t line_end = headers.find("\r\n", line_start);
    if (line_end == std::string::npos) line_end = headers.size();
    std::string_view line(headers.data() + line_start, line_end - line_start);
    size_t colon = line.find(':');
    if (colon == name.size()) {
      bool same = true;
      for (size_t i = 0; i < colon && same; ++i) {
        same = std::tolower(static_cast<unsigned char>(line[i])) == name[i];
      }
      if (same) {
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        return std::string(value);
      }
    }
    line_start = line_end + 2;
  }
  return "";
}

// One accepted connection: read the head, then the body, answer, close.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(asio::ip::tcp::socket socket, const HttpServer::Handler& handler, size_t max_bytes)
      : socket_(std::move(socket)),
        deadline_(socket_.get_executor()),
        buffer_(max_bytes),
        handler_(handler),
        max_bytes_(max_bytes) {}

  void Begin() {
    deadline_.expires_after(kConnectionDeadline);
    deadline_.async_wait([self = shared_from_this()](std::error_code error) {
      if (!error) self->socket_.close();
    });
    asio::async_read_until(socket_, buffer_, "\r\n\r\n",
                           [self = shared_from_this()](std::error_code error, size_t head_bytes) {
                             self->OnHead(error, head_bytes);
                           });
  }

 private:
  void OnHead(std::error_code error, size_t head_bytes) {
    if (error == asio::error::not_found) return Reply({431, "text/plain", "request too large\n"});
    if (error) return Close();
    std::string head(asio::buffers_begin(buffer_.data()),
                     asio::buffers_begin(buffer_.data()) + static_cast<std::ptrdiff_t>(head_bytes));
    buffer_.consume(head_bytes);
    size_t line_end = head.find("\r\n");
    std::string_view line(head.data(), line_end);
    size_t space1 = line.find(' ');
    size_t space2 = line.find(' ', space1 == line.npos ? line.size() : space1 + 1);
    if (space1 == line.npos || space2 == line.npos) return Reply({400, "text/plain", "bad\n"});
    request_.method = line.substr(0, space1);
    std::string_view target = line.substr(space1 + 1, space2 - space1 - 1);
    request_.path = target.substr(0, target.find('?'));
    request_.headers = head.substr(line_end + 2);
    std::string length_text = HeaderValue(request_.headers, "content-length");
    size_t length = 0;
    if (!length_text.empty()) {
      auto [end, parse_error] =
          std::from_chars(length_text.data(), length_text.data() + length_text.size(), length);
      if (parse_error != std::errc()) return Reply({400, "text/plain", "bad Content-Length\n"});
    }
    if (length > max_bytes_ - std::min(max_bytes_, head_bytes)) {
      return Reply({413, "text/plain", "request too large\n"});
    }
    size_t buffered = std::min(buffer_.size(), length);
    asio::async_read(socket_, buffer_, asio::transfer_exactly(length - buffered),
                     [self = shared_from_this(), length](std::error_code read_error, size_t) {
                       if (read_error) return self->Close();
                       auto begin = asio::buffers_begin(self->buffer_.data());
                       self->request_.body.assign(begin,
                                                  begin + static_cast<std::ptrdiff_t>(length));
                       self->Reply(self->handler_(self->request_));
                     });
  }

  void Reply(const HttpReply& reply) {
    response_ = "HTTP/1.1 " + std::to_string(reply.status) + " " + Reason(reply.status) +
                "\r\nContent-Type: " + reply.content_type +
                "\r\nContent-Length: " + std::to_string(reply.body.size()) +
                "\r\nConnection: close\r\n\r\n" + reply.body;
    asio::async_write(socket_, asio::buffer(response_),
                      [self = shared_from_this()](std::error_code, size_t) { self->Close(); });
  }

  void Close() {
    std::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    deadline_.cancel();
  }

  asio::ip::tcp::socket socket_;
  asio::steady_timer deadline_;
  asio::streambuf buffer_;
  const HttpServer::Handler& handler_;
  size_t max_bytes_;
  HttpRequest request_;
  std::string response_;
};

}  // namespace

// The handler is declared first so it outlives the connections the io_context still holds.
struct HttpServer::State {
  Handler handler;
  size_t max_request_bytes = 0;
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor{io};
  uint16_t port = 0;
  std::thread thread;

  void Accept() {
    acceptor.async_accept([this](std::error_code error, asio::ip::tcp::socket socket) {
      if (error) {
        if (error == asio::error::operation_aborted || !acceptor.is_open()) return;
      } else {
        std::make_shared<Connection>(std::move(socket), handler, max_request_bytes)->Begin();
      }
      Accept();
    });
  }
};

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& address, uint16_t port,
                                                      Handler handler, size_t max_request_bytes) {
  auto state = std::make_unique<State>();
  state->handler = std::move(handler);
  state->max_request_bytes = max_request_bytes;
  std::error_code error;
  asio::ip::address ip = asio::ip::make_address(address, error);
  if (error) return Status::InvalidArgument("listen address '" + address + "': " + error.message());
  asio::ip::tcp::endpoint endpoint(ip, port);
  if (state->acceptor.open(endpoint.protocol(), error) ||
      state->acceptor.set_option(asio::socket_base::reuse_address(true), error) ||
      state->acceptor.bind(endpoint, error) || state->acceptor.listen(64, error)) {
    return Status::Unavailable("listen on " + address + ":" + std::to_string(port) + ": " +
                               error.message());
  }
  state->port = state->acceptor.local_endpoint().port();
  state->Accept();
  State* raw = state.get();
  state->thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(state)));
}

HttpServer::HttpServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

HttpServer::~HttpServer() { Stop(); }

uint16_t HttpServer::port() const { return state_->port; }

void HttpServer::Stop() {
  if (!state_->thread.joinable()) return;
  state_->io.stop();
  state_->thread.join();
  std::error_code ignored;
  state_->acceptor.close(ignored);  // the thread is gone: nothing else touches it
}

}  // namespace perfhive
