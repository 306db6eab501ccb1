// Writes the seed corpus for title_database_fuzzer into the directory given as argument: a
// UTF-16 "Counter" list, an 8-bit list, and lodctr /S dumps in UTF-16 with BOM and in Latin-1.

#include <string>
#include <vector>

#include "perfdata/text_encoding.h"
#include "perfdata/title_database.h"
#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;

  perfhive::TitleDatabase db;
  db.AddName(1, "1847");
  db.AddName(2, "System");
  db.AddName(238, "Processor");
  db.AddName(6, "% Processor Time");
  db.AddHelp(3, "The System object.");
  corpus.Write("counter_utf16", db.EncodeNames());
  corpus.Write("help_utf16", db.EncodeHelps());
  // The 8-bit list: "index\0name\0" pairs; the literal's own NUL ends the list.
  static constexpr char kAnsi[] =
      "1\0"
      "1847\0"
      "2\0System\0"
      "238\0Processor\0";
  corpus.Write("counter_ansi", std::vector<uint8_t>(kAnsi, kAnsi + sizeof kAnsi));

  std::string dump =
      "\r\n[Perflib]\r\nBase Index=1847\r\nLast Counter=2910\r\nLast Help=2911\r\n\r\n"
      "[PERF_Svc]\r\nFirst Counter=2900\r\nFirst Help=2901\r\nLast Counter=2910\r\n"
      "Last Help=2911\r\n\r\n[PerfStrings_009]\r\n2=System\r\n3=Help\r\n238=Processor\r\n";
  std::vector<uint8_t> utf16 = {0xFF, 0xFE};
  std::vector<uint8_t> body = perfhive::Utf8ToUtf16Le(dump);
  utf16.insert(utf16.end(), body.begin(), body.end());
  corpus.Write("lodctr_utf16", utf16);
  std::string latin1 = dump +
                       "[PerfStrings_007]\r\n238=Prozessor\r\n240=Gr\xF6\xDF"
                       "e\r\n";
  corpus.Write("lodctr_latin1", std::vector<uint8_t>(latin1.begin(), latin1.end()));
  return 0;
}
