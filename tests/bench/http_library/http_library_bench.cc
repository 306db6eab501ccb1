// The HTTP server for /metrics and the web console (issue 23 chose cpp-httplib): serves the same
// page from perfhive's HttpServer (export/http_server.h: cpp-httplib with its connection cap and
// request screening), from cpp-httplib as it comes (with TCP_NODELAY) and from Debian's
// libmicrohttpd, each in a process of its own on loopback, and times one client asking for it in
// a row (keep-alive) and eight clients at once. Prints, per server, requests per second and the
// server process's CPU per request: what perfhive's layer costs over the library, and how the
// library compares with the other candidate.
//
//   http_library_bench [--page-bytes N] [--requests N] [--clients N]

#include <arpa/inet.h>
#include <httplib.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "export/http_client.h"
#include "export/http_server.h"
#include "tests/support/loopback_port.h"

namespace perfhive {
namespace {

struct Options {
  size_t page_bytes = 256 * 1024;
  int requests = 2000;
  int clients = 8;
};

// A page like a scrape's: many short lines.
std::string MakePage(size_t bytes) {
  std::string page;
  for (int i = 0; page.size() < bytes; ++i) {
    page += "pdh_process_working_set_bytes{host=\"web01\",instance=\"proc" + std::to_string(i) +
            "\"} " + std::to_string(1000000 + i) + "\n";
  }
  return page;
}

// User and system CPU of process `pid` so far, in seconds.
double ProcessCpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Runs `serve` (which must not return) in a child process listening on `port`.
pid_t ServeInChild(const std::function<void()>& serve) {
  pid_t pid = fork();
  if (pid == 0) {
    serve();
    _exit(0);
  }
  return pid;
}

void ServePerfhive(uint16_t port, const std::string& page) {
  auto server = HttpServer::Start("127.0.0.1", port, [&](const HttpRequest&) {
    return HttpReply{200, "text/plain; version=0.0.4", page, {}};
  });
  if (!server.ok()) _exit(1);
  pause();
}

void ServeCppHttplib(uint16_t port, const std::string& page) {
  httplib::Server server;
  // Debian's build leaves CPPHTTPLIB_TCP_NODELAY off: without it, Nagle's algorithm and delayed
  // acknowledgements hold small answers on a kept-alive connection for 40 ms.
  server.set_socket_options([](socket_t socket) {
    int on = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  });
  server.Get("/metrics", [&](const httplib::Request&, httplib::Response& response) {
    response.set_content(page, "text/plain; version=0.0.4");
  });
  server.listen("127.0.0.1", port);
}

MHD_Result AnswerMhd(void* page, MHD_Connection* connection, const char*, const char*, const char*,
                     const char*, size_t*, void**) {
  auto* text = static_cast<std::string*>(page);
  MHD_Response* response =
      MHD_create_response_from_buffer(text->size(), text->data(), MHD_RESPMEM_PERSISTENT);
  MHD_add_response_header(response, "Content-Type", "text/plain; version=0.0.4");
  MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return queued;
}

void ServeMicrohttpd(uint16_t port, std::string page) {
  MHD_Daemon* daemon = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, port, nullptr, nullptr, &AnswerMhd, &page,
      MHD_OPTION_THREAD_POOL_SIZE, 4u, MHD_OPTION_CONNECTION_LIMIT, 1000u, MHD_OPTION_END);
  if (daemon == nullptr) _exit(1);
  pause();
}

struct Figures {
  double sequential_per_second = 0;
  double concurrent_per_second = 0;
  double server_cpu_us_per_request = 0;
  int failures = 0;
};

Figures Measure(const Options& options, uint16_t port, pid_t server) {
  HttpClientOptions whole_page;
  whole_page.max_body_bytes = options.page_bytes * 2;
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
  // Up: the first answer.
  HttpClient probe(whole_page);
  for (int i = 0; i < 100 && !probe.Get(url).ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Figures figures;
  double cpu_before = ProcessCpuSeconds(server);
  auto started = std::chrono::steady_clock::now();
  HttpClient one(whole_page);
  for (int i = 0; i < options.requests; ++i) {
    Result<HttpResponse> got = one.Get(url);
    if (!got.ok() || got->status != 200 || got->body.size() < options.page_bytes) {
      ++figures.failures;
    }
  }
  double sequential =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  figures.sequential_per_second = options.requests / sequential;

  started = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  std::vector<int> failures(static_cast<size_t>(options.clients));
  int each = options.requests / options.clients;
  for (int c = 0; c < options.clients; ++c) {
    clients.emplace_back([&, c] {
      HttpClient client(whole_page);
      for (int i = 0; i < each; ++i) {
        Result<HttpResponse> got = client.Get(url);
        if (!got.ok() || got->status != 200) ++failures[static_cast<size_t>(c)];
      }
    });
  }
  for (std::thread& client : clients) client.join();
  double concurrent =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  figures.concurrent_per_second = each * options.clients / concurrent;
  for (int failed : failures) figures.failures += failed;
  double cpu = ProcessCpuSeconds(server) - cpu_before;
  figures.server_cpu_us_per_request = cpu * 1e6 / (options.requests + each * options.clients);
  return figures;
}

}  // namespace
}  // namespace perfhive

int main(int argc, char** argv) {
  perfhive::Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    long value = std::atol(argv[i + 1]);
    if (flag == "--page-bytes") options.page_bytes = static_cast<size_t>(value);
    if (flag == "--requests") options.requests = static_cast<int>(value);
    if (flag == "--clients") options.clients = static_cast<int>(value);
  }
  const std::string page = perfhive::MakePage(options.page_bytes);
  struct Library {
    const char* name;
    std::function<void(uint16_t)> serve;
  };
  const Library libraries[] = {
      {"perfhive HttpServer (cpp-httplib)",
       [&](uint16_t port) { perfhive::ServePerfhive(port, page); }},
      {"cpp-httplib 0.11.4", [&](uint16_t port) { perfhive::ServeCppHttplib(port, page); }},
      {"libmicrohttpd 0.9.75", [&](uint16_t port) { perfhive::ServeMicrohttpd(port, page); }},
  };
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("page %zu bytes, %d requests in a row, then %d clients at once\n", options.page_bytes,
              options.requests, options.clients);
  std::printf("%-36s %14s %14s %18s %9s\n", "library", "in a row /s", "concurrent /s",
              "server CPU us/req", "failures");
  int status = 0;
  for (const Library& library : libraries) {
    uint16_t port = testing::UnusedLoopbackPort();
    pid_t server = perfhive::ServeInChild([&] { library.serve(port); });
    perfhive::Figures figures = perfhive::Measure(options, port, server);
    kill(server, SIGKILL);
    waitpid(server, nullptr, 0);
    std::printf("%-36s %14.0f %14.0f %18.1f %9d\n", library.name, figures.sequential_per_second,
                figures.concurrent_per_second, figures.server_cpu_us_per_request, figures.failures);
    if (figures.failures > 0) status = 1;
  }
  return status;
}
