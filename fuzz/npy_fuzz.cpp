// A NumPy .npy matrix (data/tables/embedding_formats.h).
#include "data/tables/embedding_formats.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "npy", ".npy");
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::read_npy(path); });
}
