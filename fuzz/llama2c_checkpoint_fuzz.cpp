// A llama2.c checkpoint (models/llama2c_checkpoint.h).
#include "fuzz/fuzz_input.h"
#include "models/llama2c_checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "checkpoint");
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::load_llama2c_checkpoint(path); });
}
