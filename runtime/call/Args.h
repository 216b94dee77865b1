//===- Args.h - Command lines of te's tools ---------------------*- C++ -*-===//
//
// Part of te. Header only, plain C++17: te-run, te-aot-run, te-quantize.
//
//===----------------------------------------------------------------------===//

#ifndef TE_RUNTIME_CALL_ARGS_H
#define TE_RUNTIME_CALL_ARGS_H

#include <string>
#include <vector>

namespace te::run {

/// The command line with every `--name=value` argument split into `--name`
/// and `value` (the value keeps any further `=`, e.g. `--fill=0=1.5`), so
/// that each option takes `--opt value` and `--opt=value` alike. A single
/// `-` prefix, a lone `--` and arguments without `=` are unchanged.
inline std::vector<std::string> splitOptionValues(int argc, char **argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    size_t eq = a.find('=');
    if (i > 0 && a.size() > 3 && a.compare(0, 2, "--") == 0 &&
        eq != std::string::npos && eq > 2) {
      out.push_back(a.substr(0, eq));
      out.push_back(a.substr(eq + 1));
    } else {
      out.push_back(a);
    }
  }
  return out;
}

/// argv-style pointers into `args` (NULL-terminated), valid while `args`
/// lives unchanged.
inline std::vector<char *> argvOf(std::vector<std::string> &args) {
  std::vector<char *> out;
  for (std::string &a : args)
    out.push_back(a.data());
  out.push_back(nullptr);
  return out;
}

} // namespace te::run

#endif // TE_RUNTIME_CALL_ARGS_H
