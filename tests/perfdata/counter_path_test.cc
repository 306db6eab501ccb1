// Counter paths: PDH's forms, names with hostile characters, errors that point at the bad
// character, and parse ∘ format round trips over random names.

#include "perfdata/counter_path.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace perfhive {
namespace {

using ::testing::HasSubstr;

CounterPath Parse(std::string_view text) {
  Result<CounterPath> path = ParseCounterPath(text);
  EXPECT_TRUE(path.ok()) << text << ": " << path.error();
  return path.ok() ? *path : CounterPath{};
}

TEST(CounterPathTest, FullPath) {
  CounterPath p = Parse("\\\\WEB01\\Thread(explorer/3#2)\\% Processor Time");
  EXPECT_EQ(p.machine, "WEB01");
  EXPECT_EQ(p.object, "Thread");
  EXPECT_EQ(p.parent, "explorer");
  EXPECT_EQ(p.instance, "3");
  EXPECT_EQ(p.index, 2u);
  EXPECT_EQ(p.counter, "% Processor Time");
}

TEST(CounterPathTest, OptionalParts) {
  CounterPath memory = Parse("\\Memory\\Available Bytes");
  EXPECT_EQ(memory.machine, "");
  EXPECT_EQ(memory.object, "Memory");
  EXPECT_FALSE(memory.instance.has_value());
  EXPECT_FALSE(memory.parent.has_value());
  EXPECT_EQ(memory.counter, "Available Bytes");
  CounterPath total = Parse("\\Processor(_Total)\\% Processor Time");
  EXPECT_EQ(total.instance, "_Total");
  EXPECT_FALSE(total.index.has_value());
  CounterPath disk = Parse("\\LogicalDisk(C:)\\Avg. Disk sec/Read");
  EXPECT_EQ(disk.counter, "Avg. Disk sec/Read");  // '/' in a counter name needs nothing
}

TEST(CounterPathTest, PlainNamesThatPdhAcceptsStayPlain) {
  // Balanced parentheses inside an instance name, a '#' not followed by digits only, a '\'.
  CounterPath chrome = Parse("\\Process(chrome (1))\\ID Process");
  EXPECT_EQ(chrome.instance, "chrome (1)");
  EXPECT_EQ(FormatCounterPath(chrome), "\\Process(chrome (1))\\ID Process");
  CounterPath hash = Parse("\\Process(foo#bar)\\ID Process");
  EXPECT_EQ(hash.instance, "foo#bar");
  EXPECT_FALSE(hash.index.has_value());
  CounterPath job = Parse("\\Job Object Details(\\BaseNamedObjects\\Group1/svchost)\\Thread Count");
  EXPECT_EQ(job.parent, "\\BaseNamedObjects\\Group1");
  EXPECT_EQ(job.instance, "svchost");
  CounterPath evictions = Parse("\\Database\\Database Page Evictions (k=1)/sec");
  EXPECT_EQ(evictions.counter, "Database Page Evictions (k=1)/sec");
}

TEST(CounterPathTest, EscapesMakeAmbiguousNamesExact) {
  CounterPath p;
  p.object = "Process";
  p.instance = "a/b#12";  // a slash and a trailing #digits that are part of the name
  p.counter = "ID Process";
  std::string text = FormatCounterPath(p);
  EXPECT_EQ(text, "\\Process(a`/b`#12)\\ID Process");
  EXPECT_EQ(Parse(text), p);
  p.instance = "unbalanced)(";
  EXPECT_EQ(FormatCounterPath(p), "\\Process(unbalanced`)`()\\ID Process");
  EXPECT_EQ(Parse(FormatCounterPath(p)), p);
}

TEST(CounterPathTest, IndexWildcardIsPdhsHashStar) {
  // PDH documents "\LogicalDisk(*/*#*)\*": '#*' stands for every duplicate's index.
  CounterPath disks = Parse("\\LogicalDisk(*/*#*)\\*");
  EXPECT_EQ(disks.parent, "*");
  EXPECT_EQ(disks.instance, "*");
  EXPECT_TRUE(disks.any_index);
  EXPECT_FALSE(disks.index.has_value());
  CounterPath svchost = Parse("\\Process(svchost#*)\\ID Process");
  EXPECT_EQ(svchost.instance, "svchost");
  EXPECT_TRUE(svchost.any_index);
  EXPECT_EQ(FormatCounterPath(svchost), "\\Process(svchost#*)\\ID Process");
  EXPECT_FALSE(Parse("\\Process(svchost#1)\\ID Process").any_index);
  // A glob over names that start with "a#" must escape its '#' so it is not read as "#*".
  CounterPath glob;
  glob.object = "Process";
  glob.instance = "a#*";
  glob.counter = "x";
  EXPECT_EQ(FormatCounterPath(glob), "\\Process(a`#*)\\x");
  CounterPath back = Parse("\\Process(a`#*)\\x");
  EXPECT_EQ(back.instance, "a#*");
  EXPECT_FALSE(back.any_index);
  // A literal star after '#' is a name, not the index wildcard.
  CounterPath star = Parse("\\Process(a#`*)\\x");
  EXPECT_EQ(star.instance, "a#`*");
  EXPECT_FALSE(star.any_index);
  EXPECT_FALSE(Parse("\\Process(a#**)\\x").any_index);  // only "#*" exactly
}

TEST(CounterPathTest, WildcardsAndPatterns) {
  CounterPath p = Parse("\\\\*\\Thread(*/*)\\*");
  EXPECT_EQ(p.machine, "*");
  EXPECT_EQ(p.parent, "*");
  EXPECT_EQ(p.instance, "*");
  EXPECT_TRUE(HasWildcard(p.counter));
  EXPECT_TRUE(MatchesPattern("svc*", "svchost"));
  EXPECT_TRUE(MatchesPattern("SVC*HOST", "svcXhost"));
  EXPECT_TRUE(MatchesPattern("*", ""));
  EXPECT_TRUE(MatchesPattern("% processor time", "% Processor Time"));
  EXPECT_TRUE(MatchesPattern("\xC3\x89tat", "\xC3\xA9tat"));  // État ~ état
  EXPECT_FALSE(MatchesPattern("svc*", "lsass"));
  EXPECT_FALSE(MatchesPattern("a`*", "abc"));  // a literal star
  EXPECT_TRUE(MatchesPattern("a`*", "a*"));
  EXPECT_TRUE(MatchesPattern(EscapePattern("x*y`z"), "x*y`z"));
  EXPECT_FALSE(HasWildcard(EscapePattern("x*y")));
}

TEST(CounterPathTest, ErrorsPointAtTheBadCharacter) {
  Result<CounterPath> missing = ParseCounterPath("\\Processor(_Total\\% Processor Time");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "bad counter path at column 11: '(' is never closed: expected ')'");
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  ASSERT_EQ(missing.status().column(), 11u);
  EXPECT_EQ(PointAtColumn("\\Processor(_Total\\% Processor Time", 11),
            "  \\Processor(_Total\\% Processor Time\n"
            "            ^");
  Result<CounterPath> no_counter = ParseCounterPath("\\Memory");
  ASSERT_FALSE(no_counter.ok());
  EXPECT_THAT(no_counter.error(),
              HasSubstr("column 8: expected '\\' and a counter name after the object"));
  EXPECT_THAT(ParseCounterPath("Memory\\Available Bytes").error(),
              HasSubstr("column 1: expected '\\' to start the path"));
  EXPECT_THAT(ParseCounterPath("\\\\\\Memory\\x").error(),
              HasSubstr("column 3: expected a machine name"));
  EXPECT_THAT(ParseCounterPath("\\Process(a)x").error(),
              HasSubstr("column 12: expected '\\' and a counter name"));
  EXPECT_THAT(ParseCounterPath("\\Memory\\").error(), HasSubstr("expected a counter name"));
  EXPECT_THAT(ParseCounterPath("").error(), HasSubstr("empty"));
  EXPECT_THAT(ParseCounterPath("\\Process(x#4294967296)\\ID Process").error(),
              HasSubstr("column 12: expected an #Index below 4294967296"));
  EXPECT_EQ(Parse("\\Process(x#4294967295)\\ID Process").index, 4294967295u);
}

TEST(CounterPathTest, ColumnsCountCharactersNotBytes) {
  // "é" is two bytes: the unclosed '(' is byte 7 but character 6.
  Result<CounterPath> path = ParseCounterPath("\\caf\xC3\xA9(a\\b");
  ASSERT_FALSE(path.ok());
  EXPECT_EQ(path.error(), "bad counter path at column 6: '(' is never closed: expected ')'");
  EXPECT_EQ(PointAtColumn("\\caf\xC3\xA9(a\\b", *path.status().column()),
            "  \\caf\xC3\xA9(a\\b\n"
            "       ^");
  EXPECT_EQ(PointAtColumn("\\a\tb\nc", 6), "  \\a?b?c\n       ^");
}

TEST(CounterPathTest, EmptyInstanceAndParentParse) {
  CounterPath empty = Parse("\\Process()\\x");
  EXPECT_EQ(empty.instance, "");
  EXPECT_FALSE(empty.parent.has_value());
  CounterPath no_parent_name = Parse("\\Thread(/0)\\x");
  EXPECT_EQ(no_parent_name.parent, "");
  EXPECT_EQ(no_parent_name.instance, "0");
  CounterPath index_only = Parse("\\Thread(#3)\\x");
  EXPECT_EQ(index_only.instance, "");
  EXPECT_EQ(index_only.index, 3u);
}

TEST(CounterPathTest, SlashesAfterTheParentStayPlain) {
  CounterPath p;
  p.object = "Thread";
  p.parent = "a/b";
  p.instance = "c/d";
  p.counter = "x";
  EXPECT_EQ(FormatCounterPath(p), "\\Thread(a`/b/c/d)\\x");
  EXPECT_EQ(Parse("\\Thread(a`/b/c/d)\\x"), p);
}

TEST(CounterPathTest, NamePatternIsMatchesPatternCompiledOnce) {
  NamePattern svc("SVC*");
  EXPECT_TRUE(svc.Matches("svchost"));
  EXPECT_FALSE(svc.Matches("lsass"));
  EXPECT_TRUE(svc.has_wildcard());
  EXPECT_FALSE(svc.matches_everything());
  EXPECT_TRUE(NamePattern("**").matches_everything());
  EXPECT_FALSE(NamePattern("`*").matches_everything());
  EXPECT_FALSE(NamePattern("").matches_everything());
  EXPECT_TRUE(NamePattern("").Matches(""));
  EXPECT_FALSE(NamePattern("").Matches("a"));
  EXPECT_TRUE(NamePattern("*a*b*").Matches("xxaxxbxx"));
  EXPECT_FALSE(NamePattern("*a*b*").Matches("xxbxxaxx"));
  EXPECT_TRUE(NamePattern("\xC3\x89*").Matches("\xC3\xA9t\xC3\xA9"));  // É*, été
  // Bytes that are not UTF-8 are compared as they are: a lone \x89 is not folded to \xA9.
  EXPECT_FALSE(NamePattern("a\x89").Matches("a\xA9"));
  EXPECT_TRUE(NamePattern("a\x89*").Matches("a\x89\xFF"));
}

TEST(CounterPathTest, PatternsMatchNamesInEveryScriptIgnoringCase) {
  EXPECT_TRUE(MatchesPattern("процессор", "Процессор"));
  EXPECT_TRUE(MatchesPattern("% ЗАГРУЖЕННОСТИ ПРОЦЕССОРА", "% загруженности процессора"));
  EXPECT_TRUE(MatchesPattern("ПРОЦ*", "процессор"));
  EXPECT_FALSE(MatchesPattern("ПРОЦ*", "память"));
  EXPECT_TRUE(MatchesPattern("επεξεργαστής", "ΕΠΕΞΕΡΓΑΣΤΉΣ"));
  EXPECT_TRUE(MatchesPattern("*ՍՈՐ", "պրոցեսոր"));
  EXPECT_TRUE(MatchesPattern("ᲞᲠᲝᲪᲔᲡᲝᲠᲘ", "პროცესორი"));
  EXPECT_TRUE(MatchesPattern("ｓｖｃ*", "ＳＶＣＨＯＳＴ"));
  EXPECT_FALSE(MatchesPattern("svc*", "ＳＶＣＨＯＳＴ"));  // full-width is not ASCII
  EXPECT_TRUE(MatchesPattern("*ς", "ΟΔΟΣ ΟΔΟΣ"));          // final sigma
  EXPECT_TRUE(MatchesPattern("οδοσ", "οδος"));
}

TEST(CounterPathTest, WildcardsTakeWholeCharactersOfAnyLength) {
  // U+212A KELVIN SIGN is 3 bytes and folds to 'k'.
  EXPECT_TRUE(MatchesPattern("\u212A*n", "kelvin"));
  EXPECT_TRUE(MatchesPattern("k*N", "\u212Aelvin"));
  EXPECT_TRUE(MatchesPattern("*k", "\u212A"));
  EXPECT_TRUE(MatchesPattern("*k*k", "Я\u212Aяk"));
  EXPECT_TRUE(MatchesPattern("*\u212A\u212A", "ЯkkkK"));  // backtracks over 2-byte Я
  EXPECT_FALSE(MatchesPattern("*\u212A\u212A", "Яkяk"));
  EXPECT_TRUE(MatchesPattern("stra*\u1E9E*", "straßße"));  // U+1E9E folds to ß
  // A star never takes part of a character: "é" is C3 A9, not C3 and then A9.
  EXPECT_FALSE(MatchesPattern("*\xA9", "\xC3\xA9"));
  EXPECT_FALSE(MatchesPattern("\xC3*", "\xC3\xA9"));
  EXPECT_TRUE(MatchesPattern("`\u212A*", "\u212Ak"));  // an escaped letter still folds
}

std::string RandomName(std::mt19937& rng, bool allow_empty) {
  static const char* kPieces[] = {"a",
                                  "Z",
                                  "0",
                                  "7",
                                  " ",
                                  "#",
                                  "/",
                                  "\\",
                                  "(",
                                  ")",
                                  "*",
                                  "`",
                                  "\"",
                                  "'",
                                  "%",
                                  "\xC3\xA9",
                                  "\xF0\x9F\x98\x80",
                                  "\xE4\xB8\xAD",
                                  "\xC3\x89",
                                  "_Total"};
  std::string name;
  int length = std::uniform_int_distribution<int>(allow_empty ? 0 : 1, 8)(rng);
  for (int i = 0; i < length; ++i) {
    name += kPieces[std::uniform_int_distribution<size_t>(0, std::size(kPieces) - 1)(rng)];
  }
  return name;
}

TEST(CounterPathTest, ParseOfFormatRoundTripsOverHostileNames) {
  std::mt19937 rng(20261122);
  // A name escaped as a pattern, sometimes with a real wildcard appended.
  auto component = [&](bool allow_empty) {
    std::string pattern = EscapePattern(RandomName(rng, allow_empty));
    if (rng() % 8 == 0) pattern += '*';
    return pattern;
  };
  for (int round = 0; round < 20000; ++round) {
    CounterPath p;
    if (rng() % 2) p.machine = component(false);
    p.object = component(false);
    int shape = static_cast<int>(rng() % 3);  // no instance part, instance, parent and instance
    if (shape >= 1) p.instance = component(true);
    if (shape == 2) p.parent = component(true);
    if (shape >= 1 && rng() % 3 == 0) p.index = static_cast<uint32_t>(rng());
    if (shape >= 1 && !p.index && rng() % 4 == 0) p.any_index = true;
    p.counter = component(false);
    std::string text = FormatCounterPath(p);
    Result<CounterPath> back = ParseCounterPath(text);
    ASSERT_TRUE(back.ok()) << text << "\n" << back.error();
    ASSERT_EQ(*back, p) << text;
  }
}

}  // namespace
}  // namespace perfhive
