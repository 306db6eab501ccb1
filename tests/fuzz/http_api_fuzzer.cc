// Feeds arbitrary requests to the console's JSON API (HttpApi::Handle over a real, empty store)
// and its session cookie reader: line 1 is the path ("/api/v1/read"), each further line a
// parameter "name=value" or, starting with "H:", a header "Name: value". Every answer must be a
// valid HTTP status with a JSON body; an accepted read must carry what its parameters said.
// Nothing may crash, hang or leak.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "server/api/http_api.h"
#include "server/api/query_service.h"
#include "server/enrollment/token_table.h"
#include "server/http/console_server.h"
#include "store/sample_loader.h"
#include "store/store.h"

namespace {

// One empty store for the whole run, in a directory of its own.
perfhive::QueryService& Service() {
  static perfhive::QueryService* service = [] {
    static char dir[] = "/tmp/http_api_fuzzer.XXXXXX";
    if (mkdtemp(dir) == nullptr) abort();
    static std::unique_ptr<perfhive::Store> store = std::move(perfhive::Store::Open(dir).value());
    static perfhive::SampleLoader loader(*store);
    static perfhive::TokenTable tokens = perfhive::TokenTable::AllowAll();
    return new perfhive::QueryService(*store, loader, tokens);
  }();
  return *service;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  perfhive::HttpRequest request;
  request.method = "GET";
  size_t end = text.find('\n');
  request.path = std::string(text.substr(0, end));
  while (end != std::string_view::npos) {
    text.remove_prefix(end + 1);
    end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.starts_with("H:")) {
      size_t colon = line.find(':', 2);
      if (colon == std::string_view::npos) continue;
      request.headers.emplace(std::string(line.substr(2, colon - 2)),
                              std::string(line.substr(colon + 1)));
    } else {
      size_t equals = line.find('=');
      request.params.emplace(
          std::string(line.substr(0, equals)),
          equals == std::string_view::npos ? std::string() : std::string(line.substr(equals + 1)));
    }
  }
  (void)perfhive::CookieValue(request.Header("Cookie"), perfhive::kSessionCookie);
  constexpr int64_t kNow = 1'795'705'200'000'000'000;
  perfhive::Result<perfhive::query::ReadRequest> read =
      perfhive::ReadRequestFromParams(request, kNow);
  if (read.ok() && read->paths.size() != request.Params("path").size()) {
    __builtin_trap();
  }
  perfhive::HttpApi api(Service());
  perfhive::HttpReply reply = api.Handle(request, kNow);
  if (reply.status < 200 || reply.status > 599) __builtin_trap();
  if (reply.content_type == "application/json" && !nlohmann::json::accept(reply.body)) {
    __builtin_trap();
  }
  return 0;
}
