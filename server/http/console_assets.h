// The web console's files, built into perfhive-server (cmake/embed_files.cmake writes them from
// server/console/ and Debian's Chart.js), so that the console needs nothing but the binary and
// loads nothing from outside the server.

#ifndef PERFHIVE_SERVER_HTTP_CONSOLE_ASSETS_H_
#define PERFHIVE_SERVER_HTTP_CONSOLE_ASSETS_H_

#include <span>
#include <string_view>

namespace perfhive {

struct EmbeddedFile {
  std::string_view name;          // "index.html": served at /index.html
  std::string_view content_type;  // "text/html; charset=utf-8"
  std::string_view bytes;
};

std::span<const EmbeddedFile> ConsoleAssets();

}  // namespace perfhive

#endif  // PERFHIVE_SERVER_HTTP_CONSOLE_ASSETS_H_
