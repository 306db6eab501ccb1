// Writes the seed corpus for display_text_fuzzer into the directory given as argument: a
// truncation limit byte, then the texts of issue 20 and names in several scripts.

#include <string>

#include "tests/fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  perfhive::testing::SeedCorpus corpus;
  if (!corpus.Open(argc, argv)) return 2;
  const std::string seeds[] = {
      "web01",
      "WIN-7H3K2",
      "db01.corp.example.com",
      "10.0.0.7",
      "M\xC3\xBCller-PC",
      "\xE3\x82\xB5\xE3\x83\xBC\xE3\x83\x90\xE3\x83\xBC"
      "01",  // サーバー01
      "web01\x1b[31mRED",
      "evil\nlevel=error msg=forged",
      "\\\\web01\\Process(x)",
      "disk full\r\n",
      "web\xE2\x80\x8B"
      "01",  // zero-width space
      "\xE2\x80\xAE"
      "exe.txt",  // right-to-left override
      "bad \xC3\x28 \xFF \xED\xA0\x80 \xF4\x90\x80\x80",
      "\xF0\x9F\x98\x80 \xF3\xA0\x80\x81",  // an emoji and a tag character
      std::string(300, 'a'),
  };
  int n = 0;
  for (const std::string& text : seeds) {
    // Each text with a limit that cuts it, and with one that does not.
    corpus.Write("seed" + std::to_string(n++), std::string(1, '\x05') + text);
    corpus.Write("seed" + std::to_string(n++), std::string(1, '\xFF') + text);
  }
  return 0;
}
