#pragma once
// The text-processing steps a tokenizer.json declares, read into HfTokenizerSpec's plain steps:
// its normalizer, pre-tokenizer and decoder (each one component or a Sequence of them). A type
// embpriv does not apply is refused by name, with the list of those it does.
#include <vector>

#include "data/tokenizers/hf_json_reader.h"
#include "data/tokenizers/hf_tokenizer_json.h"

namespace embpriv {

std::vector<HfNormalizerStep> read_hf_normalizer(const HfJsonReader& r, const nlohmann::json& normalizer);
std::vector<HfPreTokenizerStep> read_hf_pre_tokenizer(const HfJsonReader& r, const nlohmann::json& pre_tokenizer);
std::vector<HfDecoderStep> read_hf_decoder(const HfJsonReader& r, const nlohmann::json& decoder);

}  // namespace embpriv
