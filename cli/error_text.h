// An error message as the perfhive CLI prints it. Errors quote what hosts sent (names, health
// messages, the server's list of known hosts) and what a person typed, so a message is shown
// escaped (perfdata/display_text.h). The lines perfhive itself lays out after the first (the
// counter path and the caret under the column at fault, one reason per host) are indented by two
// spaces and stay lines; any other line break belongs to a quoted text and is shown as \n, so a
// quoted text can add at most an indented line to the message, never a line that passes for
// another message.

#ifndef PERFHIVE_CLI_ERROR_TEXT_H_
#define PERFHIVE_CLI_ERROR_TEXT_H_

#include <cstring>
#include <string>
#include <string_view>

#include "base/status.h"
#include "perfdata/display_text.h"

namespace perfhive::cli {

inline std::string ErrorForDisplay(std::string_view message) {
  std::string shown;
  size_t line = 0;
  for (size_t end = message.find("\n  "); end != std::string_view::npos;
       end = message.find("\n  ", line)) {
    shown += EscapeForDisplay(message.substr(line, end - line)) + "\n";
    line = end + 1;
  }
  return shown + EscapeForDisplay(message.substr(line));
}

// What a command says when standard output could not be written (a full disk); `error` is the
// failed write's errno.
inline Status OutputNotWritten(int error) {
  return Status::Error(std::string("the answer could not be written to standard output: ") +
                       std::strerror(error));
}

}  // namespace perfhive::cli

#endif  // PERFHIVE_CLI_ERROR_TEXT_H_
