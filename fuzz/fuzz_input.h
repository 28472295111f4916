#pragma once
// Shared by the fuzz targets: the parsers read files, so each input is written to a file of this
// process first. Bad input must end in embpriv::Error (caught here); anything else (a crash, a
// sanitizer report, another exception, a hang, memory beyond libFuzzer's -rss_limit_mb) is a bug
// that libFuzzer reports.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "core/error.h"

namespace embpriv::fuzz {

// Writes the input to /tmp/embpriv_fuzz_<name>_<pid><suffix> and returns its path.
inline std::string input_file(const std::uint8_t* data, std::size_t size, const std::string& name,
                              const std::string& suffix = "") {
  const std::string path = "/tmp/embpriv_fuzz_" + name + "_" + std::to_string(getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                static_cast<std::streamsize>(size));
  return path;
}

// Runs `parse`; an embpriv::Error is the expected answer to bad input.
template <class Parse>
int expect_only_embpriv_errors(Parse parse) {
  try {
    parse();
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace embpriv::fuzz
