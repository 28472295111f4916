#include "experiments/types/inversion/inversion_memory.h"

#include <algorithm>
#include <string>

#include "attacks/nearest_rows.h"
#include "platform/memory_limit.h"
#include "experiments/types/inversion/inversion_keys.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/types/shared/vocabulary_memory.h"

namespace embpriv {
namespace {

// The UCI sentiment files hold 1,000 sentences each; a sentence is at most about 64 tokens of
// tok512 (most are 10-30), so 64 bounds the tokens of one.
constexpr double kSentencesPerFile = 1000;
constexpr double kTokensPerSentence = 64;
// Per sent token and embedding value: the clean and the perturbed rows (float32, 4 + 4) and the
// mechanism's float32 temporaries (4 + 4).
constexpr double kBytesPerTokenValue = 16;

}  // namespace

MemoryEstimate inversion_memory(const YAML::Node& config) {
  const InversionSettings s = read_inversion_settings(config);
  MemoryEstimate m;
  const double sentences = std::min<double>(static_cast<double>(s.max_sentences), kSentencesPerFile);
  const double train_sentences = kSentencesPerFile * static_cast<double>(s.train_sentences.size());
  if (s.vocabulary == Vocabulary::glove) {
    const std::int64_t rows = glove_rows(s.glove_words);
    m.shared_bytes = glove_load_bytes(s.glove_words);
    m.shared_key = "glove|" + std::to_string(rows);
    m.working_bytes = knn_score_block_bytes(KnnOptions{}, kGloveTableDim, rows) +
                      (sentences + train_sentences) * kTokensPerSentence * kGloveTableDim * kBytesPerTokenValue;
    m.size_keys = {inversion_key::kGloveWords.path(), vocabulary_key::kMaxSentences.path()};
    m.what = "the GloVe table (" + std::to_string(rows) + " of " + std::to_string(kGloveTableWords) +
             " words kept), the sentences' token rows and the KNN score blocks";
    return m;
  }
  const LanguageModelShape shape = read_language_model_shape(s.model);
  m.shared_bytes = language_model_weight_bytes(s.model);
  m.shared_key = "llama2c|" + s.model;
  const double d = static_cast<double>(shape.dim);
  const double train_tokens = train_sentences * kTokensPerSentence;
  // The learned attack's training set: every train token's window of 2w + 1 perturbed rows
  // (float32) and its logits over the vocabulary with their gradient (attacks/learned_inversion.h).
  const double learned = s.learned ? train_tokens * 4.0 *
                                         (static_cast<double>(2 * s.learned_window + 1) * d + 2.0 * static_cast<double>(shape.vocab))
                                   : 0.0;
  m.working_bytes = knn_score_block_bytes(KnnOptions{}, shape.dim, shape.vocab) +
                    (sentences + train_sentences) * kTokensPerSentence * d * kBytesPerTokenValue +
                    language_model_utility_bytes(shape, s.stories, s.story_tokens) + learned;
  m.size_keys = {vocabulary_key::kTexts.path(), vocabulary_key::kTokens.path(), vocabulary_key::kMaxSentences.path()};
  m.what = "the language-model utility's logits over " + std::to_string(s.stories) + " texts x " +
           std::to_string(s.story_tokens + 1) + " tokens x " + std::to_string(shape.vocab) +
           " ids, the sentences' token rows and one block of KNN scores";
  return m;
}

}  // namespace embpriv
