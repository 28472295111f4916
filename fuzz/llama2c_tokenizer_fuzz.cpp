// A llama2.c tokenizer file (data/tokenizers/llama2c_tokenizer.h), then encoding and decoding with it.
#include "data/tokenizers/llama2c_tokenizer.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "tokenizer");
  return embpriv::fuzz::expect_only_embpriv_errors([&] {
    const auto tokenizer = embpriv::Llama2cTokenizer::load(path, 512);
    const auto ids = tokenizer.encode("Once upon a time, \xc3\xa9\xff a tiny fox.", true, true);
    tokenizer.decode(ids);
  });
}
