#include "experiments/types/inversion/inversion_memory.h"

#include <algorithm>
#include <string>

#include "attacks/invbert.h"
#include "attacks/learned_inversion.h"
#include "attacks/nearest_rows.h"
#include "platform/memory_limit.h"
#include "experiments/types/inversion/inversion_keys.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/types/shared/user_vectors.h"
#include "experiments/types/shared/user_vectors_keys.h"
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
// GloVe word tokens of a UCI sentence: 12.4 (amazon), 13.1 (yelp) and 17.4 (imdb) on average,
// the longest 40, 38 and 87 (data.sentences' files, tokenized as data/tokenizers/word_tokenizer.h
// does). The mean, with a margin, counts all the tokens of a set; the bound counts the padded
// length of a batch, the longest of its sentences (a batch of 32 or 64 random sentences holds one
// of 30-40 tokens in amazon and yelp).
constexpr double kGloveTokensPerSentence = 20;
constexpr double kGloveLongestSentence = 64;

// The learned attack over the first data.glove_words GloVe words (vocabulary V, rows of d):
// float32 logits over V dominate.
// InvBert (attacks/invbert.h): a training step holds 4 [batch, L, V] tensors (the summed logits,
// their log-softmax, and the two gradients), a guess pass 3 [64 pieces, L, V] (the prior head's
// logits, the tied head's and their sum), L the batch's longest sentence; its parameters (the
// prior head h x V dominates) with their gradients and Adam's two moments are 4 float32 copies.
// The window MLP (attacks/learned_inversion.h): the logits of every private token at once in
// guess; a training batch's logits, log-softmax and their gradients (4 [batch, V]); the windows of
// every training token (float32, and the draw they are cut from and the first draw that scales
// them: 3 copies); its parameters with Adam's state (4 copies).
// Measured 2026-11-26 (the case of tests/experiments/engine/memory_estimates_test.cpp): InvBert
// over 20,000 words with 100 private and 1,000 training sentences, 1 epoch, peaked at 0.9-1.0 GB,
// about 460 MB above the same run without it (the guess pass: 64 sentences of about 30 tokens at
// most), estimated 1.47 GB; the MLP at 658 MB, estimated 814 MB; InvBert over 50,000 words at
// 1,709 MB, estimated 3.03 GB (the peak of a run without any model is about 180 MB).
double glove_learned_attack_bytes(const InversionSettings& s, double vocabulary, double private_sentences,
                                  double train_sentences) {
  const double d = kGloveTableDim, V = vocabulary, L = kGloveLongestSentence;
  if (s.learned_model == LearnedModel::transformer) {
    const InvBertOptions o;
    const double h = static_cast<double>(o.hidden), ff = static_cast<double>(o.feedforward);
    const double parameters = h * V + V + 2 * (d * h + h) + static_cast<double>(o.max_length) * h +
                              static_cast<double>(o.layers) * (4 * h * h + 4 * h + 2 * h * ff + h + ff + 4 * h);
    const double training = 4 * static_cast<double>(o.batch) * L * V;
    const double guess = 3 * 64 * L * V;  // InvBert::guess answers 64 pieces per pass
    return 4.0 * (std::max(training, guess) + 4 * parameters);
  }
  const LearnedInversionOptions o;
  const double in = static_cast<double>(2 * s.learned_window + 1) * d, h = static_cast<double>(o.hidden);
  const double parameters = in * h + h + h * V + V;
  const double guess = private_sentences * kGloveTokensPerSentence * V;
  const double training = 4 * static_cast<double>(o.batch) * V;
  const double windows = 3 * train_sentences * kGloveTokensPerSentence * in;
  return 4.0 * (std::max(training, guess) + windows + 4 * parameters);
}

}  // namespace

MemoryEstimate inversion_memory(const YAML::Node& config) {
  const InversionSettings s = read_inversion_settings(config);
  MemoryEstimate m;
  if (uses_user_vectors(config)) {
    // The user's file (float32, in the run's cache and its copy on the device), every row sent
    // and its train rows perturbed (kBytesPerTokenValue each), and the KNN score blocks.
    const UserVectorsShape shape = check_user_vectors(config);
    m.shared_bytes = batch_bytes(shape.rows, shape.dim, 8);
    m.shared_key = "user_vectors|" + user_vectors_key::kVectors(config) + "|" + user_vectors_key::kDataset(config);
    m.working_bytes = knn_score_block_bytes(KnnOptions{}, shape.dim, shape.rows) +
                      batch_bytes(shape.rows, shape.dim, kBytesPerTokenValue);
    m.size_keys = {user_vectors_key::kVectors.path()};
    m.what = "the " + std::to_string(shape.rows) + " x " + std::to_string(shape.dim) +
             " vectors of data.vectors, their perturbed copies and the KNN score blocks";
    return m;
  }
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
    if (s.learned) {
      m.working_bytes += glove_learned_attack_bytes(s, static_cast<double>(rows), sentences, train_sentences);
      m.what += std::string(", and the learned attack's logits over the ") + std::to_string(rows) + " words (" +
                (s.learned_model == LearnedModel::transformer ? "InvBert" : "window MLP") + ") with its parameters";
    }
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
