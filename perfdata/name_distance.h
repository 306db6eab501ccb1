// How far apart two names are, to suggest the name a person meant when the one written matches
// nothing (`no object "Procesor" on web01; did you mean "Processor"?`). Names compare as paths
// match them: ignoring case with perfdata/case_folding.h, character (code point) by character,
// so a typo in "Prozessor" or "Процессор" counts once whatever its length in UTF-8.

#ifndef PERFHIVE_PERFDATA_NAME_DISTANCE_H_
#define PERFHIVE_PERFDATA_NAME_DISTANCE_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfhive {

// The fewest insertions, deletions and substitutions of one character, and swaps of two adjacent
// ones, that turn `a` into `b`, ignoring case: the optimal string alignment form of the
// Damerau–Levenshtein distance (no character is edited twice).
size_t NameDistance(std::string_view a, std::string_view b);

// The names among `candidates` that `written` may be a typo of, closest first (ties in the
// candidates' order), each once (ignoring case), at most `max`. A name is close when its distance
// is at most a third of the longer name's characters: one typo in a name of 3 to 5 characters, two
// in 6 to 8, and none in names of one or two, which any other short name is a typo away from.
std::vector<std::string> CloseNames(std::string_view written,
                                    std::span<const std::string> candidates, size_t max = 3);

}  // namespace perfhive

#endif  // PERFHIVE_PERFDATA_NAME_DISTANCE_H_
