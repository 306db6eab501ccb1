// Name distances and the close names suggested for a name that matches nothing: edits counted
// per character in any script, ignoring case as paths match names, and a threshold that grows
// with the name.

#include "perfdata/name_distance.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace perfhive {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(NameDistanceTest, CountsInsertionsDeletionsSubstitutionsAndAdjacentSwaps) {
  EXPECT_EQ(NameDistance("Processor", "Processor"), 0u);
  EXPECT_EQ(NameDistance("Procesor", "Processor"), 1u);   // a letter left out
  EXPECT_EQ(NameDistance("Processor", "Procesor"), 1u);   // and the other way round
  EXPECT_EQ(NameDistance("Prozessor", "Processor"), 1u);  // one letter for another
  EXPECT_EQ(NameDistance("scv", "svc"), 1u);              // two neighbours swapped
  EXPECT_EQ(NameDistance("Porcess", "Process"), 1u);
  EXPECT_EQ(NameDistance("Procesor", "Process"), 2u);
  EXPECT_EQ(NameDistance("", "Memory"), 6u);
  EXPECT_EQ(NameDistance("Memory", ""), 6u);
  EXPECT_EQ(NameDistance("kitten", "sitting"), 3u);  // the textbook pair
  // Optimal string alignment edits no character twice: "ca" to "abc" is three edits, not the
  // two (swap, then insert between the swapped pair) of the unrestricted distance.
  EXPECT_EQ(NameDistance("ca", "abc"), 3u);
}

TEST(NameDistanceTest, IgnoresCaseInEveryScriptAndCountsCharactersNotBytes) {
  EXPECT_EQ(NameDistance("% PROCESSOR TIME", "% processor time"), 0u);
  EXPECT_EQ(NameDistance("ПРОЦЕССОР", "процессор"), 0u);
  // One Cyrillic letter (two bytes in UTF-8) left out is one edit.
  EXPECT_EQ(NameDistance("Процесор", "Процессор"), 1u);
  EXPECT_EQ(NameDistance("Prozessorzeit (%)", "PROZESORZEIT (%)"), 1u);
  // U+212A KELVIN SIGN (three bytes) is 'k'.
  EXPECT_EQ(NameDistance("\u212Aelvin", "kelvin"), 0u);
  EXPECT_EQ(NameDistance("ß", "ss"), 2u);  // simple folding: ß is not ss
}

TEST(CloseNamesTest, SuggestsTheClosestFirstAndAtMostThree) {
  const std::vector<std::string> objects = {
      "Process", "Memory", "Processor", "Processor Information", "System", "Processor X"};
  EXPECT_THAT(CloseNames("Procesor", objects), ElementsAre("Processor", "Process", "Processor X"));
  EXPECT_THAT(CloseNames("Procesor", objects, 1), ElementsAre("Processor"));
  EXPECT_THAT(CloseNames("memry", objects), ElementsAre("Memory"));
  EXPECT_THAT(CloseNames("Network Interface", objects), IsEmpty());
}

TEST(CloseNamesTest, ToleratesMoreTyposInLongerNames) {
  // A third of the longer name's characters: 1 for 3..5, 2 for 6..8, 5 for 16.
  const std::vector<std::string> names = {"svc", "% Processor Time", "Process"};
  EXPECT_THAT(CloseNames("scv", names), ElementsAre("svc"));
  EXPECT_THAT(CloseNames("sv", names), ElementsAre("svc"));                        // 1 of 3
  EXPECT_THAT(CloseNames("sx", names), IsEmpty());                                 // 2 of 3
  EXPECT_THAT(CloseNames("Prcss", names), ElementsAre("Process"));                 // 2 of 7
  EXPECT_THAT(CloseNames("Prc", names), IsEmpty());                                // 4 of 7
  EXPECT_THAT(CloseNames("% Proc Time", names), ElementsAre("% Processor Time"));  // 5 of 16
  EXPECT_THAT(CloseNames("% Pro Time", names), IsEmpty());                         // 6 of 16
}

TEST(CloseNamesTest, ShortNamesGetNoSuggestion) {
  // Processor instances "0", "1", "2": any one-character name is a typo away from all of them.
  const std::vector<std::string> cpus = {"0", "1", "2", "_Total"};
  EXPECT_THAT(CloseNames("9", cpus), IsEmpty());
  EXPECT_THAT(CloseNames("1", cpus), ElementsAre("1"));  // the same name is at distance 0
  EXPECT_THAT(CloseNames("_Totl", cpus), ElementsAre("_Total"));
}

TEST(CloseNamesTest, NamesEqualIgnoringCaseAreSuggestedOnceInTheirFirstSpelling) {
  // An English and a localized database often hold the same name for one index.
  const std::vector<std::string> names = {"Processor", "PROCESSOR", "Prozessor", "processor"};
  EXPECT_THAT(CloseNames("Procesor", names), ElementsAre("Processor", "Prozessor"));
  // Ties keep the candidates' order.
  EXPECT_THAT(CloseNames("app", std::vector<std::string>{"app#1", "apo", "apx"}),
              ElementsAre("apo", "apx"));
}

}  // namespace
}  // namespace perfhive
