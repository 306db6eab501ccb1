// Writes the seed corpus for counter_path_fuzzer into the directory given as argument.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const char* seeds[] = {
      "\\\\WEB01\\Processor(_Total)\\% Processor Time",
      "\\Thread(explorer/3#2)\\Context Switches/sec",
      "\\Process(chrome (1))\\ID Process",
      "\\Process(a`/b`#12)\\ID Process",
      "\\\\*\\*(*/*)\\*",
      "\\LogicalDisk(C:)\\Avg. Disk sec/Read",
      "\\Memory\\Available Bytes",
  };
  int n = 0;
  for (const char* seed : seeds) std::ofstream(dir / ("seed" + std::to_string(n++))) << seed;
  return 0;
}
