#pragma once
// Paths of the real data the tests use (../shared/data, described in its README.md).
#include <string>

namespace embpriv {

// EMBPRIV_DATA_DIR: ../shared/data, found by CMakeLists.txt.
inline std::string shared_data(const std::string& relative) {
  return std::string(EMBPRIV_DATA_DIR) + "/" + relative;
}
inline std::string stories260k_checkpoint() { return shared_data("tinyllama/stories260K.bin"); }
inline std::string stories260k_tokenizer() { return shared_data("tinyllama/tok512.bin"); }

}  // namespace embpriv
