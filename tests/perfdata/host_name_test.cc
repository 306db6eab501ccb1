// What a host name may be: a computer name in any script, and nothing that would make a path,
// a terminal or a log show something else. A refusal names what is wrong and shows the name
// escaped, so the refusal itself is safe to print.

#include "perfdata/host_name.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace perfhive {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// The message of the refusal of `name`, or "" when it is accepted.
std::string Refusal(std::string_view name) {
  Status status = CheckHostName(name);
  if (status.ok()) return "";
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.message();
  return status.message();
}

TEST(HostNameTest, AcceptsComputerNames) {
  for (std::string_view name : {"web01", "WIN-7H3K2", "db01.corp.example.com", "10.0.0.7",
                                "Müller-PC", "サーバー01", "a", "SQL_NODE_2", "linux-e2e"}) {
    EXPECT_TRUE(CheckHostName(name).ok()) << name << ": " << CheckHostName(name).message();
  }
  EXPECT_TRUE(CheckHostName(std::string(kMaxHostNameBytes, 'a')).ok());
}

TEST(HostNameTest, RefusesTheNamesOfIssue20ShowingThemEscaped) {
  std::string colour = Refusal("web01\x1b[31mRED");
  EXPECT_THAT(colour, HasSubstr("\"web01\\x1B[31mRED\""));
  EXPECT_THAT(colour, HasSubstr("byte 5 is a control character (U+001B)"));

  std::string forged = Refusal("evil\nlevel=error msg=forged");
  EXPECT_THAT(forged, HasSubstr("\"evil\\nlevel=error msg=forged\""));
  EXPECT_THAT(forged, HasSubstr("byte 4 is a control character (U+000A)"));

  std::string path = Refusal("\\\\web01\\Process(x)");
  EXPECT_THAT(path, HasSubstr("\"\\\\web01\\Process(x)\""));
  EXPECT_THAT(path, HasSubstr("byte 0 is '\\'"));

  std::string huge = Refusal(std::string(8 << 20, 'a'));
  EXPECT_THAT(huge, HasSubstr("it is 8388608 bytes long"));
  EXPECT_THAT(huge, HasSubstr("(8388608 bytes in all)"));
  EXPECT_LT(huge.size(), 400u);  // the name is shown cut, not whole

  for (const std::string& message : {colour, forged, path, huge}) {
    EXPECT_EQ(message.find_first_of("\x1b\n\r"), std::string::npos) << message;
    EXPECT_THAT(message, HasSubstr("is not a computer name"));
  }
}

TEST(HostNameTest, RefusesWhatAPathOrAWildcardWouldReadOtherwise) {
  const std::pair<std::string_view, std::string_view> refused[] = {
      {"web 01", "byte 3 is ' '"}, {"web*", "byte 3 is '*'"},   {"web?", "byte 3 is '?'"},
      {"a\\b", "byte 1 is '\\'"},  {"a/b", "byte 1 is '/'"},    {"web(1)", "byte 3 is '('"},
      {"web#2", "byte 3 is '#'"},  {"web:80", "byte 3 is ':'"}, {"a,b", "byte 1 is ','"},
      {"a\"b", "byte 1 is '\"'"},
  };
  for (auto [name, why] : refused) EXPECT_THAT(Refusal(name), HasSubstr(why)) << name;
}

TEST(HostNameTest, RefusesControlInvisibleBidirectionalAndSpaceCharacters) {
  const std::pair<std::string_view, std::string_view> refused[] = {
      {"web\u200B01", "byte 3 is an invisible or control character (U+200B)"},
      {"web\u200D01", "(U+200D)"},
      {"\u202Eweb01", "byte 0 is an invisible or control character (U+202E)"},
      {"web\u2066", "(U+2066)"},
      {"web\uFEFF", "(U+FEFF)"},
      {"web\xC2\x85", "(U+0085)"},  // C1 NEL
  };
  for (auto [name, why] : refused) {
    std::string message = Refusal(name);
    EXPECT_THAT(message, HasSubstr(why)) << name;
    EXPECT_THAT(message, HasSubstr("\\u{")) << "the name shown escaped: " << message;
  }
  // Spaces a terminal shows as spaces.
  EXPECT_THAT(Refusal("web\u00A001"), HasSubstr("byte 3 is a space (U+00A0)"));  // no-break
  EXPECT_THAT(Refusal("web\u300001"), HasSubstr("byte 3 is a space (U+3000)"));  // ideographic
  EXPECT_THAT(Refusal("web\x7F"), AllOf(HasSubstr("byte 3 is a control character (U+007F)"),
                                        HasSubstr("\"web\\x7F\"")));
}

TEST(HostNameTest, RefusesBytesThatAreNotUtf8) {
  EXPECT_THAT(Refusal("web\xFF"),
              AllOf(HasSubstr("byte 3 is not valid UTF-8"), HasSubstr("\"web\\xFF\"")));
  EXPECT_THAT(Refusal("M\xC3"), HasSubstr("byte 1 is not valid UTF-8"));          // truncated ü
  EXPECT_THAT(Refusal("\xC1\x81"), HasSubstr("byte 0 is not valid UTF-8"));       // overlong
  EXPECT_THAT(Refusal("a\xED\xA0\x80"), HasSubstr("byte 1 is not valid UTF-8"));  // surrogate
}

TEST(HostNameTest, RefusesEmptyOverlongAndBadlyPlacedDotsAndDashes) {
  EXPECT_THAT(Refusal(""), HasSubstr("it is empty"));
  EXPECT_THAT(Refusal(std::string(254, 'a')), HasSubstr("it is 254 bytes long"));
  EXPECT_THAT(Refusal(std::string(127, 'a') + "\xC3\xBC" + std::string(125, 'a')),
              HasSubstr("it is 254 bytes long"));
  EXPECT_THAT(Refusal("-web"), HasSubstr("it starts with '-'"));
  EXPECT_THAT(Refusal(".web"), HasSubstr("it starts with '.'"));
  EXPECT_THAT(Refusal("."), HasSubstr("it starts with '.'"));
  EXPECT_THAT(Refusal("web."), HasSubstr("it ends with '.'"));
  EXPECT_THAT(Refusal("web..corp"), HasSubstr("it has \"..\""));
}

}  // namespace
}  // namespace perfhive
