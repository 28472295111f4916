#pragma once
// The memory of the data the vocabulary types load (inversion, obfuslm, mia, federated): the
// GloVe table, a llama2.c model and the texts the model writes for the language-model utility.
// Parts of the per-type estimates (experiments/types/<type>/<type>_memory.h).
#include <cstdint>
#include <string>

namespace embpriv {

// The wink GloVe table the set-up installs: 341,479 words x 100 values (data/tables/embedding_formats.h).
inline constexpr std::int64_t kGloveTableWords = 341479;
inline constexpr std::int64_t kGloveTableDim = 100;

// The peak of loading the GloVe table and keeping its first `words` rows (0: all): the whole
// table (float32 values and the words) while the first rows are copied out of it.
double glove_load_bytes(std::int64_t words);
// The float32 values of the first `words` rows (0: all) kept afterwards.
std::int64_t glove_rows(std::int64_t words);

// The shape of a language model: a llama2.c checkpoint's header (models/llama2c_checkpoint.h) or
// a Hugging Face folder's config.json (models/hf_decoder_config.h).
// positions: the longest input it reads (llama2.c seq_len; config.json's
// max_position_embeddings, or its sliding_window when smaller, as models/hf_decoder_model.h).
struct LanguageModelShape {
  std::int64_t dim = 0, hidden_dim = 0, layers = 0, heads = 0, vocab = 0, positions = 0;
};
LanguageModelShape read_language_model_shape(const std::string& checkpoint_path);
// Refuses, before any row runs, texts of language_model.tokens tokens that the model's positions
// cannot hold (a text is <s> and `tokens` tokens: tokens + 1 positions), naming both keys, the
// model and the length needed. `model` as the config gives data.model.
void check_language_model_positions(const std::string& model, std::int64_t tokens);
// The model's weights: a llama2.c checkpoint's float32 (its size, header aside); a Hugging Face
// folder's safetensors files plus the largest matrix converted to float32 at a time.
double language_model_weight_bytes(const std::string& checkpoint_path);
// The peak of the language-model utility over `texts` texts of `tokens` tokens
// (models/language_model_utility.h): the clean and the perturbed forward pass and their logits.
double language_model_utility_bytes(const LanguageModelShape& shape, std::int64_t texts, std::int64_t tokens);

}  // namespace embpriv
