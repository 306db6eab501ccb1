// Writes the seed corpus for title_database_fuzzer into the directory given as argument, all
// made from one small table: the UTF-16LE "Counter" and "Help" lists EncodeNames/EncodeHelps
// write, an 8-bit "Counter" list in Latin-1, and a lodctr /S dump in UTF-16LE with a byte order
// mark and in Latin-1 with CR LF.

#include <cstdint>
#include <string>
#include <vector>

#include "perfdata/text_encoding.h"
#include "perfdata/title_database.h"
#include "tests/fuzz/seed_corpus.h"

namespace {

struct Entry {
  uint32_t index;
  const char* latin1;
};

// Odd indexes are help texts, but 1 (the count) is a name.
constexpr Entry kEnglish[] = {
    {1, "1847"},
    {2, "System"},
    {3, "The System object."},
    {6, "% Processor Time"},
    {7, "Help with = and\na line break."},
    {238, "Processor"},
    {1846, "End Marker"},
    {1847, "End Marker"},
};
constexpr Entry kGerman[] = {{238, "Prozessor"}, {234, "Physikalischer Datentr\xE4ger"}};

std::string Utf8(const char* latin1) {
  return perfhive::CodePageToUtf8(
      std::span(reinterpret_cast<const uint8_t*>(latin1), std::char_traits<char>::length(latin1)),
      28591);
}

template <size_t N>
std::string StringsSection(const char* language, const Entry (&entries)[N]) {
  std::string section = std::string("[PerfStrings_") + language + "]\r\n";
  for (const Entry& entry : entries) {
    section += std::to_string(entry.index) + "=" + entry.latin1 + "\r\n";
  }
  return section + "\r\n";
}

}  // namespace

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;

  perfhive::TitleDatabase english;
  for (const Entry& entry : kEnglish) {
    if (entry.index % 2 == 1 && entry.index != 1) {
      english.AddHelp(entry.index, Utf8(entry.latin1));
    } else {
      english.AddName(entry.index, Utf8(entry.latin1));
    }
  }
  corpus.Write("counter_utf16", english.EncodeNames());
  corpus.Write("help_utf16", english.EncodeHelps());
  // What the ANSI call returns on a German host: "index\0name\0" pairs, an empty string last.
  std::string ansi_counter;
  for (const Entry& entry : kGerman) {
    ansi_counter += std::to_string(entry.index) + '\0' + entry.latin1 + '\0';
  }
  corpus.Write("counter_latin1", ansi_counter + '\0');

  std::string dump =
      "\r\n\r\n[Perflib]\r\nBase Index=1847\r\nLast Counter=1846\r\nLast Help=1847\r\n\r\n"
      "[PERF_My Service]\r\nFirst Counter=1000\r\nFirst Help=1001\r\nLast Counter=1002\r\n"
      "Last Help=1003\r\n\r\n" +
      StringsSection("009", kEnglish) + StringsSection("007", kGerman);
  corpus.Write("lodctr_latin1", dump);
  std::vector<uint8_t> utf16 = {0xFF, 0xFE};
  std::vector<uint8_t> body = perfhive::Utf8ToUtf16Le(Utf8(dump.c_str()));
  utf16.insert(utf16.end(), body.begin(), body.end());
  corpus.Write("lodctr_utf16_bom", utf16);
  return 0;
}
