// The shared part of the seed generators (<name>_seeds.cc): the command line, the corpus
// directory, and writing one seed file.

#ifndef PERFHIVE_TESTS_FUZZ_SEED_CORPUS_H_
#define PERFHIVE_TESTS_FUZZ_SEED_CORPUS_H_

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace perfhive::testing {

class SeedCorpus {
 public:
  // Takes the corpus directory from the command line and creates it; false on a bad command line.
  bool Open(int argc, char** argv) {
    if (argc != 2) {
      std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
      return false;
    }
    dir_ = argv[1];
    std::filesystem::create_directories(dir_);
    return true;
  }

  void Write(const std::string& name, const std::vector<uint8_t>& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  void Write(const std::string& name, std::string_view text) const {
    Write(name, std::vector<uint8_t>(text.begin(), text.end()));
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace perfhive::testing

#endif  // PERFHIVE_TESTS_FUZZ_SEED_CORPUS_H_
