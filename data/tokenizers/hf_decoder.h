#pragma once
// The decoder steps of a tokenizer.json, applied in order to the tokens of decoded ids, as the
// `tokenizers` library's decode_chain does; the text is their concatenation.
#include <string>
#include <vector>

#include "data/tokenizers/hf_tokenizer_json.h"

namespace embpriv {

// Without steps the tokens are joined with spaces (the library's default).
std::string apply_hf_decoder(const std::vector<HfDecoderStep>& steps, std::vector<std::string> tokens);

}  // namespace embpriv
