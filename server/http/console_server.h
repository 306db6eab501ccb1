// ConsoleServer: perfhive-server's HTTP endpoint (--http-listen): the web console's page
// (server/console/, built into the binary), its JSON API (HttpApi) and the login, which opens a
// session (ConsoleSessions) whose opaque ID an HTTP-only cookie keeps. Readers are the same as
// gRPC's: a token that may read, given once in the login form or on every call as "Authorization:
// Bearer"; with --insecure (loopback only) everyone may read and there is nothing to log in to.
// docs/http_api.md describes it.

#ifndef PERFHIVE_SERVER_HTTP_CONSOLE_SERVER_H_
#define PERFHIVE_SERVER_HTTP_CONSOLE_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "export/http_server.h"
#include "server/api/http_api.h"
#include "server/api/query_service.h"
#include "server/enrollment/token_table.h"
#include "server/http/console_sessions.h"

namespace perfhive {

class ConsoleServer {
 public:
  // Listens on `address`:`port` (0: a free port) with `http`'s TLS, answering with `query` for
  // the readers `tokens` admits; `login_required` false (--insecure) lets everyone read.
  static Result<std::unique_ptr<ConsoleServer>> Start(const std::string& address, uint16_t port,
                                                      QueryService& query, const TokenTable& tokens,
                                                      bool login_required, HttpServerOptions http);
  ConsoleServer(const ConsoleServer&) = delete;
  ConsoleServer& operator=(const ConsoleServer&) = delete;

  uint16_t port() const { return server_->port(); }
  void Stop() { server_->Stop(); }

  // Answers one request (the HTTP server's handler; public for tests). Every answer tells the
  // browser not to guess its type, not to be framed, run no script unless it is the console's
  // own page, and send no referrer; over TLS, to use only HTTPS for this host from then on.
  HttpReply Handle(const HttpRequest& request);

 private:
  ConsoleServer(QueryService& query, const TokenTable& tokens, bool login_required)
      : api_(query), tokens_(tokens), login_required_(login_required) {}
  // The reader of a request: its bearer token, else its session cookie's.
  Result<Principal> Reader(const HttpRequest& request);
  HttpReply Login(const HttpRequest& request);
  HttpReply Logout(const HttpRequest& request);
  // Handle's answer before the headers every answer carries.
  HttpReply Route(const HttpRequest& request);

  HttpApi api_;
  const TokenTable& tokens_;
  ConsoleSessions sessions_;
  bool login_required_;
  std::unique_ptr<HttpServer> server_;
};

// The cookie that keeps a logged-in reader's session ID.
inline constexpr std::string_view kSessionCookie = "perfhive_session";

// The value of cookie `name` in a Cookie header ("a=1; b=2"), as it is; empty if absent.
std::string_view CookieValue(std::string_view cookie_header, std::string_view name);

// Whether a Host header (a name or address, and an optional port) names this machine's loopback:
// localhost, 127.0.0.0/8 or [::1]. An --insecure console, where nobody logs in, answers only such
// requests: a page elsewhere that points its own name at 127.0.0.1 (DNS rebinding) sends its own
// name, and is refused.
bool IsLoopbackHost(std::string_view host);

// Whether a POST may come from a page of another site (cross-site request forgery): browsers
// name the page's origin in Origin, or its relation in Sec-Fetch-Site, on every POST. An Origin
// must be this console's own (`https://` or `http://` and the Host header); where it is "null"
// (a page with no-referrer, a sandbox) or absent, Sec-Fetch-Site must say same-origin or none
// (typed by the user). A client that sends neither is no browser, and no other site's page.
bool IsCrossSitePost(const HttpRequest& request);

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_HTTP_CONSOLE_SERVER_H_
