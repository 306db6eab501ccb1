// Writes consecutive samples of the large snapshot to files, for timing `perfhive decode` and
// for trying the command by hand: write_large_snapshot OUT_PREFIX [COUNT] writes
// OUT_PREFIX0.bin, OUT_PREFIX1.bin, ...

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/support/large_snapshot.h"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s OUT_PREFIX [COUNT]\n", argv[0]);
    return 2;
  }
  int count = argc == 3 ? std::atoi(argv[2]) : 2;
  for (int sample = 0; sample < count; ++sample) {
    std::vector<uint8_t> bytes = perfhive::testing::BuildLargeSnapshot(sample);
    std::string path = std::string(argv[1]) + std::to_string(sample) + ".bin";
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::perror(path.c_str());
      return 1;
    }
  }
  return 0;
}
