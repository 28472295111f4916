// A Hugging Face tokenizer.json (data/tokenizers/hf_tokenizer_json.h, data/tokenizers/hf_tokenizer.h): read, and when
// accepted, encode and decode a line with accents, CJK, an emoji and an added-token look-alike.
#include "data/tokenizers/hf_tokenizer.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "hf_tokenizer_json", ".json");
  return embpriv::fuzz::expect_only_embpriv_errors([&] {
    const embpriv::HfTokenizer tokenizer = embpriv::HfTokenizer::load(path);
    const auto ids = tokenizer.encode("Héllo, wörld! 東京 👋 <s> don't 12345\n", true);
    tokenizer.decode(ids);
  });
}
