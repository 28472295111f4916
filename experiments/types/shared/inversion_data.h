#pragma once
// The data side of experiment type `inversion` (experiments/types/inversion/inversion_experiment.h): its
// settings, the models and tables it loads once per run, and the sentences encoded as rows of
// a public embedding table (llama2.c tokens or GloVe words).
#include <ATen/core/Tensor.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "data/tables/embedding_table.h"
#include "data/corpora/sentiment_corpus.h"
#include "data/tokenizers/tokenizer.h"
#include "experiments/engine/run_cache.h"
#include "experiments/engine/typed_key.h"
#include "experiments/types/shared/vocabulary_keys.h"
#include "models/language_model.h"

namespace embpriv {

struct InversionSettings {
  Vocabulary vocabulary;
  std::string model, tokenizer, glove, sentences;
  TokenMask mask;
  KnnMetric metric;
  std::int64_t glove_words, max_sentences, k, stories, story_tokens;
  double temperature;
  std::vector<std::string> train_sentences = {};
  bool learned = false;            // attack.learned: also run the learned inversion attack
  std::int64_t learned_epochs = 8, learned_window = 2;
  LearnedModel learned_model = LearnedModel::mlp;  // attack.learned_model: the window MLP or InvBert
  std::string device = "cpu";      // the run's `device:` (auto | cpu | cuda[:N]): where the model's tensors live
};
// Reads a point's settings (the keys of type inversion, checked against their declarations by
// the engine) and checks what involves several keys; throws ConfigError naming the key.
InversionSettings read_inversion_settings(const YAML::Node& config);
// The keys types inversion and obfuslm share (data.*, attack.k, language_model.*,
// utility.train_sentences), with the mask and the KNN metric given.
// data.tokenizer "auto": the folder itself (its tokenizer.json) when data.model is a Hugging Face
// folder, else stories260K's tinyllama/tok512.bin; any other value as given.
std::string tokenizer_for_model(const std::string& model, const std::string& tokenizer);

// glove_words: the type's own declaration of data.glove_words (its default differs by type).
InversionSettings read_vocabulary_settings(const YAML::Node& config, const Key<std::int64_t>& glove_words,
                                           TokenMask mask, KnnMetric metric);

// Models, tokenizers and tables, loaded once per run (kept in the run's cache under the files
// and sizes they come from), not once per point.
struct InversionData {
  // stories260k: a language model (data.model: a llama2.c .bin or a Hugging Face folder) and its
  // tokenizer (data.tokenizer: a llama2.c .bin, a tokenizer.json or a folder holding one).
  std::shared_ptr<const LanguageModel> model;
  std::shared_ptr<const Tokenizer> tokenizer;
  // Per token id: the piece the punctuation mask reads (a llama2.c piece, or a tokenizer.json
  // token as decoded alone; byte-fallback tokens keep their "<0xNN>" name), and whether it is a
  // byte-fallback token.
  std::vector<std::string> token_texts;
  std::vector<bool> byte_tokens;
  std::shared_ptr<const EmbeddingTable> glove;        // glove
  std::vector<LabelledSentence> sentences;
  std::vector<LabelledSentence> train_sentences;      // for the sentiment classifier
};
const InversionData& load_inversion_data(const InversionSettings& s, RunCache& cache);

// The private text as the attacked system sees it: token rows of a public table.
struct PrivateText {
  at::Tensor table;                                        // [V, d] on the CPU
  at::Tensor search_table;                                 // the same rows on the model's device (KNN runs there)
  at::Tensor special;                                      // [V] bool: rows never guessed
  std::vector<std::int64_t> flat;                          // every sentence's token rows
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // [begin, end) of each sentence's words
  at::Tensor public_tokens;                                // [tokens] bool (Def. 6.2)
  std::int64_t unknown = 0;                                // words outside the vocabulary (glove)
  std::vector<std::int64_t> labels;                        // sentiment of each sentence
};
// The first `count` sentences: GloVe words (unknown ones left out and counted) or llama2.c
// tokens (with <s>); under `mask: punctuation` special tokens and pieces without a letter or
// digit are public.
PrivateText encode_sentences(const InversionData& data, const InversionSettings& s,
                             const std::vector<LabelledSentence>& sentences, std::size_t count);

// The texts the clean model writes for the language-model utility (models/
// language_model_utility.h: sample_texts), [stories, story_tokens + 1] ids: sampled once per
// run and seed (they depend on the model, the language_model keys and the point's seed, never
// on the mechanism), then read from the run's cache.
const at::Tensor& sampled_texts(const InversionData& data, const InversionSettings& s, const YAML::Node& config,
                                std::uint64_t seed, RunCache& cache);

// True when a piece holds a letter, a digit or a non-ASCII byte.
bool has_word_character(const std::string& piece);

// A sentence embedding: the mean of its token rows (sentences with no token are left out).
struct SentenceFeatures {
  at::Tensor features;  // [sentences, d]
  at::Tensor labels;    // [sentences]
};
SentenceFeatures mean_pooled(const PrivateText& text, const at::Tensor& rows);

}  // namespace embpriv
