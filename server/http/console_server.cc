#include "server/http/console_server.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "perfdata/case_folding.h"
#include "port/env.h"
#include "server/http/console_assets.h"

namespace perfhive {
namespace {

// The page may load only what the server itself serves: no CDN, no inline script, no framing.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
    "frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

// Every other answer (JSON, CSV, errors) is data: a browser that renders one runs nothing in it
// and loads nothing for it.
constexpr std::string_view kDataSecurityPolicy = "default-src 'none'; frame-ancestors 'none'";

// A year, as the HSTS preload list asks; the console is only ever served over HTTPS when it has
// a certificate (--insecure serves loopback alone, over HTTP).
constexpr std::string_view kStrictTransportSecurity = "max-age=31536000";

void AddSecurityHeaders(HttpReply& reply, bool tls) {
  bool has_policy = std::any_of(reply.headers.begin(), reply.headers.end(), [](const auto& header) {
    return header.first == "Content-Security-Policy";
  });
  if (!has_policy) {
    reply.headers.emplace_back("Content-Security-Policy", std::string(kDataSecurityPolicy));
  }
  reply.headers.emplace_back("X-Content-Type-Options", "nosniff");
  reply.headers.emplace_back("Referrer-Policy", "no-referrer");
  if (tls) {
    reply.headers.emplace_back("Strict-Transport-Security", std::string(kStrictTransportSecurity));
  }
}

HttpReply SeeOther(std::string location) {
  HttpReply reply;
  reply.status = 303;
  reply.body = "See " + location + "\n";
  reply.headers.emplace_back("Location", std::move(location));
  reply.headers.emplace_back("Cache-Control", "no-store");
  return reply;
}

// Percent-encodes everything but unreserved characters, for a query parameter.
std::string QueryParameterText(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Where a login goes next: a path of this server only, never another site.
std::string LocalTarget(std::string_view next) {
  if (next.empty() || next[0] != '/' || next.starts_with("//") || next.starts_with("/\\")) {
    return "/";
  }
  for (char c : next) {
    if (static_cast<unsigned char>(c) < 0x20) return "/";
  }
  return std::string(next);
}

}  // namespace

std::string_view CookieValue(std::string_view cookie_header, std::string_view name) {
  while (!cookie_header.empty()) {
    size_t end = cookie_header.find(';');
    std::string_view pair = cookie_header.substr(0, end);
    cookie_header = end == std::string_view::npos ? "" : cookie_header.substr(end + 1);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    if (pair.size() > name.size() && pair.starts_with(name) && pair[name.size()] == '=') {
      return pair.substr(name.size() + 1);
    }
  }
  return {};
}

bool IsLoopbackHost(std::string_view host) {
  auto is_port = [](std::string_view text) {
    return !text.empty() && text.size() <= 5 &&
           text.find_first_not_of("0123456789") == std::string_view::npos;
  };
  if (host.starts_with('[')) {
    size_t close = host.find(']');
    if (close == std::string_view::npos || host.substr(1, close - 1) != "::1") return false;
    std::string_view rest = host.substr(close + 1);
    return rest.empty() || (rest.front() == ':' && is_port(rest.substr(1)));
  }
  if (size_t colon = host.find(':'); colon != std::string_view::npos) {
    if (!is_port(host.substr(colon + 1))) return false;
    host = host.substr(0, colon);
  }
  if (FoldCase(host) == "localhost") return true;
  // 127.a.b.c, each part a number up to 255.
  if (!host.starts_with("127.")) return false;
  int parts = 0;
  for (size_t at = 0; at <= host.size();) {
    size_t dot = std::min(host.find('.', at), host.size());
    std::string_view part = host.substr(at, dot - at);
    if (part.empty() || part.size() > 3 ||
        part.find_first_not_of("0123456789") != std::string_view::npos ||
        std::stoi(std::string(part)) > 255) {
      return false;
    }
    ++parts;
    at = dot + 1;
  }
  return parts == 4;
}

Result<std::unique_ptr<ConsoleServer>> ConsoleServer::Start(const std::string& address,
                                                            uint16_t port, QueryService& query,
                                                            const TokenTable& tokens,
                                                            bool login_required,
                                                            HttpServerOptions http) {
  std::unique_ptr<ConsoleServer> console(new ConsoleServer(query, tokens, login_required));
  ConsoleServer* handler = console.get();
  Result<std::unique_ptr<HttpServer>> server = HttpServer::Start(
      address, port, [handler](const HttpRequest& request) { return handler->Handle(request); },
      std::move(http));
  if (!server.ok()) return server.status();
  console->server_ = std::move(server).value();
  return console;
}

Result<Principal> ConsoleServer::Reader(const HttpRequest& request) {
  std::string authorization = request.Header("Authorization");
  std::string_view session;
  if (authorization.empty()) {
    session = CookieValue(request.Header("Cookie"), kSessionCookie);
    if (!session.empty()) {
      std::optional<std::string> token = sessions_.Token(session, ConsoleSessions::Clock::now());
      if (!token) {
        return Status(StatusCode::kUnauthenticated,
                      "this console session has ended (logged out, unused for 12 hours, a week "
                      "old, or the server restarted): log in again");
      }
      authorization = "Bearer " + *token;
    }
  }
  Result<Principal> principal = tokens_.Authenticate(authorization);
  if (!principal.ok()) {
    if (!session.empty()) sessions_.Close(session);
    return principal.status();
  }
  if (!principal->read) {
    return Status::PermissionDenied("token \"" + principal->name + "\" may not read");
  }
  return principal;
}

bool IsCrossSitePost(const HttpRequest& request) {
  const std::string& origin = request.Header("Origin");
  const std::string& site = request.Header("Sec-Fetch-Site");
  if (!origin.empty() && origin != "null") {
    return origin != (request.tls ? "https://" : "http://") + request.Header("Host");
  }
  // "null": the console's own pages say Referrer-Policy: no-referrer, under which a browser
  // sends its forms' Origin as null; their Sec-Fetch-Site still says same-origin.
  if (!site.empty()) return site != "same-origin" && site != "none";
  return origin == "null";
}

HttpReply ConsoleServer::Handle(const HttpRequest& request) {
  HttpReply reply = Route(request);
  AddSecurityHeaders(reply, request.tls);
  return reply;
}

HttpReply ConsoleServer::Route(const HttpRequest& request) {
  const std::string& path = request.path;
  if (!login_required_ && !IsLoopbackHost(request.Header("Host"))) {
    HttpReply refused;
    refused.status = 421;
    refused.body =
        "this console serves requests addressed to localhost, 127.0.0.1 or [::1] "
        "only (--insecure: nobody logs in); the request named another host\n";
    return refused;
  }
  if (request.method == "POST" && IsCrossSitePost(request)) {
    HttpReply refused;
    refused.status = 403;
    refused.body = "a form of another site's page is not taken here (cross-site request)\n";
    return refused;
  }
  if (path == "/login" && request.method == "POST") return Login(request);
  if (path == "/logout" && request.method == "POST") return Logout(request);
  if (path.starts_with("/api/")) {
    Result<Principal> reader = Reader(request);
    if (!reader.ok()) {
      HttpReply reply = JsonError(reader.status());
      if (reply.status == 401) reply.headers.emplace_back("WWW-Authenticate", "Bearer");
      return reply;
    }
    if (path == "/api/v1/session") {
      nlohmann::json session = {{"name", reader->name}, {"login_required", login_required_}};
      HttpReply reply;
      reply.content_type = "application/json";
      reply.body = session.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      reply.headers.emplace_back("Cache-Control", "no-store");
      return reply;
    }
    return api_.Handle(request, UnixNanosNow());
  }
  if (request.method != "GET" && request.method != "HEAD") {
    HttpReply reply;
    reply.status = 405;
    reply.body = request.method + " is not served here\n";
    reply.headers.emplace_back("Allow", "GET, HEAD");
    return reply;
  }
  // The page and its files need no login: they hold no data, and the page is what logs in.
  std::string_view name = path == "/" ? std::string_view("index.html") : path;
  if (name.starts_with('/')) name.remove_prefix(1);
  for (const EmbeddedFile& file : ConsoleAssets()) {
    if (file.name != name) continue;
    HttpReply reply;
    reply.content_type = std::string(file.content_type);
    reply.body = std::string(file.bytes);
    reply.headers.emplace_back("Cache-Control", "no-cache");
    reply.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy));
    return reply;
  }
  // The path is not repeated: an answer never carries text a link's author chose.
  HttpReply missing;
  missing.status = 404;
  missing.body = "no such page here\n";
  return missing;
}

HttpReply ConsoleServer::Login(const HttpRequest& request) {
  std::string token = request.Param("token");
  std::string next = LocalTarget(request.Param("next"));
  Result<Principal> principal = tokens_.Authenticate("Bearer " + token);
  Status refused;
  if (!principal.ok()) {
    refused = principal.status();
  } else if (!principal->read) {
    refused = Status::PermissionDenied("token \"" + principal->name + "\" may not read");
  }
  Result<std::string> session =
      refused.ok() ? sessions_.Open(token, ConsoleSessions::Clock::now()) : refused;
  if (!session.ok()) {
    return SeeOther("/?login_error=" + QueryParameterText(session.status().message()));
  }
  HttpReply reply = SeeOther(next);
  // The cookie holds the session's ID, never the token. HTTP-only: the page's scripts never see
  // it; SameSite=Strict: no other site's page can make the browser send it; Secure whenever the
  // console is served over TLS.
  reply.headers.emplace_back("Set-Cookie", std::string(kSessionCookie) + "=" + *session +
                                               "; Path=/; HttpOnly; SameSite=Strict" +
                                               (request.tls ? "; Secure" : ""));
  return reply;
}

HttpReply ConsoleServer::Logout(const HttpRequest& request) {
  std::string_view session = CookieValue(request.Header("Cookie"), kSessionCookie);
  if (!session.empty()) sessions_.Close(session);
  HttpReply reply = SeeOther("/");
  reply.headers.emplace_back("Set-Cookie", std::string(kSessionCookie) +
                                               "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" +
                                               (request.tls ? "; Secure" : ""));
  return reply;
}

}  // namespace perfhive
