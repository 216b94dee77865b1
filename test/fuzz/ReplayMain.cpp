//===- ReplayMain.cpp - Run fuzz inputs through a target without libFuzzer ===//
//
// Part of te.
//
//===----------------------------------------------------------------------===//
//
// The main() of the replayers: each argument is a file or a directory of
// files; every file is passed to LLVMFuzzerTestOneInput once. Used by the
// regression tests in builds without libFuzzer (gcc, the ASan build). Exit
// status 0 when every input ran (crashes and sanitizer reports end the
// process), 2 on an unreadable path.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

bool runFile(const std::filesystem::path &p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "error: cannot read %s\n", p.string().c_str());
    return false;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)),
                          std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size());
  return true;
}

} // namespace

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path p(argv[i]);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> files;
      for (const auto &e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file())
          files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const fs::path &f : files) {
        if (!runFile(f))
          return 2;
        ++ran;
      }
    } else {
      if (!runFile(p))
        return 2;
      ++ran;
    }
  }
  std::printf("replayed %d inputs\n", ran);
  return 0;
}
