#pragma once
// What experiment type `obfuslm` measures on one obfuscated vocabulary
// (mechanisms/obfuslm/vocabulary_obfuscator.h), each as a function of its own:
//   (a) KNN inversion of the obfuscated rows: the server maps each row it received to the
//       nearest row of the public embedding table (ObfusLM's headline attack);
//   (b) the same attack on the token stream a client sends (shuffled ids of real sentences);
//   (c) the (k, eps)-anonymity game: two members of a cluster, WeightSynth re-run many times,
//       how well the nearest-member test tells them apart, as an empirical epsilon;
//   (d) utility: the server model's next-token agreement with the clean model, the perplexity
//       of clean-model text, and a generation through the client/server flow.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mechanisms/obfuslm/vocabulary_obfuscator.h"
#include "models/language_model_utility.h"
#include "models/language_model.h"

namespace embpriv {

struct Recovery {
  double top1 = 0, topk = 0;
  double rouge_l = 0;  // streams only
};

// (a) over `sample` of the rows marked in `attacked` (bool [V]; all when fewer, a seeded
// sample otherwise); guesses never name a `special` row.
Recovery attack_obfuscated_rows(const ObfuscatedVocabulary& v, const at::Tensor& table, const at::Tensor& special,
                                const at::Tensor& attacked, std::int64_t k, std::int64_t sample, std::uint64_t seed);

// (b) the stream `flat` (token ids, sentence spans [begin, end)) as the server receives it.
Recovery attack_token_stream(const ObfuscatedVocabulary& v, const at::Tensor& table, const at::Tensor& special,
                             std::int64_t k, const std::vector<std::int64_t>& flat,
                             const std::vector<std::pair<std::size_t, std::size_t>>& spans);

// (b) for a per-vector mechanism with fresh noise per occurrence: each sent row ([tokens, d],
// token i of `flat` perturbed) mapped to its nearest public row; ids carry nothing here.
Recovery attack_perturbed_stream(const at::Tensor& sent_rows, const at::Tensor& table, const at::Tensor& special,
                                 std::int64_t k, const std::vector<std::int64_t>& flat,
                                 const std::vector<std::pair<std::size_t, std::size_t>>& spans);

struct AnonymityGame {
  std::int64_t pairs = 0;
  double accuracy = 0;             // mean over pairs of the test's accuracy (0.5: cannot tell)
  double lower_bound_median = 0;   // empirical-epsilon lower bounds over the pairs
  double lower_bound_max = 0;
  double share_above_claim = 0;    // pairs whose lower bound exceeds the claimed eps
};

// (c) up to `clusters` clusters of >= 2 rows (seeded choice); in each, its opener a and next
// member b; `trials` WeightSynth draws under each; confidence is Bonferroni-split over pairs.
AnonymityGame anonymity_game(const ObfuscatedVocabulary& v, const at::Tensor& table, const ObfuscationOptions& options,
                             std::int64_t clusters, std::int64_t trials, double confidence, std::uint64_t seed);

// (d) texts [B, T] the clean model wrote, read by the server model through the flow.
LanguageModelUtility obfuscated_model_utility(const LanguageModel& clean, const LanguageModel& server,
                                              const ObfuscatedVocabulary& v, const at::Tensor& texts);
// The client encodes the prompt ids, the server generates `tokens` greedy shuffled ids, the
// client decodes: the returned ids are in the original vocabulary.
std::vector<std::int64_t> generate_through_flow(const LanguageModel& server, const ObfuscatedVocabulary& v,
                                                const std::vector<std::int64_t>& prompt, std::int64_t tokens);

}  // namespace embpriv
