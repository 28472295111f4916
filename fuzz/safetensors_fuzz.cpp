// A safetensors file (data/tables/embedding_formats.h), read for its tensor "embeddings".
#include "data/tables/embedding_formats.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "safetensors", ".safetensors");
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::read_safetensors(path, "embeddings"); });
}
