// Errors as the CLI prints them: what they quote escaped, on one line, but for the indented lines
// perfhive lays out itself (issue 20, case 9: a host name with a newline and an escape sequence,
// quoted in the server's list of known hosts).

#include "cli/error_text.h"

#include <gtest/gtest.h>

namespace perfhive::cli {
namespace {

TEST(ErrorTextTest, AQuotedTextIsEscapedOnTheMessagesLine) {
  EXPECT_EQ(ErrorForDisplay("no host named \"x\"; known hosts: evil\nlevel=error, web01\x1b[31m"),
            "no host named \"x\"; known hosts: evil\\nlevel=error, web01\\x1B[31m");
  EXPECT_EQ(ErrorForDisplay("cannot read \\\\web01\\C$\\perf\r\n"),
            "cannot read \\\\web01\\C$\\perf\\r\\n");
  EXPECT_EQ(ErrorForDisplay("bad \xFF byte"), "bad \\xFF byte");
  EXPECT_EQ(ErrorForDisplay(""), "");
}

TEST(ErrorTextTest, APathErrorKeepsItsPathAndCaretLines) {
  const std::string message =
      "bad counter path at column 9: '(' is never closed\n"
      "  \\Process(explorer\\ID Process\n"
      "          ^";
  EXPECT_EQ(ErrorForDisplay(message), message);
}

TEST(ErrorTextTest, IndentedReasonsStayLinesAndAreEscapedEach) {
  EXPECT_EQ(ErrorForDisplay("no counter matches those paths:\n  web01: no object \"Proc\x1b[2J\"\n"
                            "  evil\nlevel=error: no samples"),
            "no counter matches those paths:\n  web01: no object \"Proc\\x1B[2J\"\n"
            "  evil\\nlevel=error: no samples");
}

}  // namespace
}  // namespace perfhive::cli
