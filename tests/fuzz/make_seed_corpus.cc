// Writes the USXF reader fuzzer's seed corpus (seed_corpus.h) into a directory,
// one NAME.usxf per seed. scripts/fuzz.sh runs it before every fuzz run, so no
// generated file is kept in the repository.
// Usage: make_seed_corpus DIR
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fuzz/seed_corpus.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "make_seed_corpus: %s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  size_t total = 0;
  const auto seeds = vexfs::usxf::fuzz::MakeSeedCorpus();
  for (const auto& [name, bytes] : seeds) {
    const std::filesystem::path path = dir / (name + ".usxf");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.good()) {
      std::fprintf(stderr, "make_seed_corpus: cannot write %s\n", path.c_str());
      return 1;
    }
    total += bytes.size();
  }
  std::printf("make_seed_corpus: %zu files, %zu bytes in %s\n", seeds.size(), total, dir.c_str());
  return 0;
}
