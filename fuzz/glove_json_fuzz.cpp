// GloVe word vectors as the wink-embeddings JSON (data/tables/embedding_formats.h).
#include "data/tables/embedding_formats.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "glove", ".json");
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::read_wink_glove_json(path); });
}
