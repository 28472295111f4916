// Any text encoded by the real stories260K tokenizer (tok512.bin): the merges must end, and the
// text decode back exactly.
#include <cstdlib>

#include "data/tokenizers/llama2c_tokenizer.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const embpriv::Llama2cTokenizer tokenizer =
      embpriv::Llama2cTokenizer::load(std::string(EMBPRIV_DATA_DIR) + "/tinyllama/tok512.bin", 512);
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (tokenizer.decode(tokenizer.encode(text)) != text) std::abort();  // a lost or changed byte
  return 0;
}
