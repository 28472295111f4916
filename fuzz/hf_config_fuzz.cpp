// A Hugging Face config.json (models/hf_decoder_config.h): any text must parse into a config or
// end in one embpriv::Error naming the key.
#include <string>

#include "fuzz/fuzz_input.h"
#include "models/hf_decoder_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::parse_hf_decoder_config(text, "config.json"); });
}
