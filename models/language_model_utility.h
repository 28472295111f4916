#pragma once
// What a language model still does when its input embeddings are perturbed: how often its
// next-token choice agrees with the clean run, and the perplexity of a text under each.
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "core/rng.h"
#include "models/language_model.h"

namespace embpriv {

struct LanguageModelUtility {
  double next_token_agreement = 0;  // share of positions where argmax(perturbed) == argmax(clean)
  double perplexity_clean = 0;      // exp(mean NLL of the next token), clean input embeddings
  double perplexity_perturbed = 0;  // the same with the perturbed input embeddings
};

// ids [B, T] (T >= 2), perturbed input embeddings [B, T, dim] of the same tokens.
LanguageModelUtility compare_language_model(const LanguageModel& model, const at::Tensor& ids,
                                            const at::Tensor& perturbed);

// The same from two sets of next-token logits [B, T, vocab] of ids [B, T]: the clean model's
// and another's (a model with perturbed inputs, or an obfuscated model's, unshuffled). Clean
// logits holding NaN or Inf are refused; a position whose other logits are not all finite counts
// as a disagreement (NaN argmaxes must never agree).
LanguageModelUtility compare_next_token_logits(const at::Tensor& ids, const at::Tensor& clean_logits,
                                               const at::Tensor& other_logits);
// `count` texts of `tokens` new tokens after the model's bos_id() (<s>), sampled at `temperature` (> 0); text i draws
// from Rng(seed, i). Returns [count, tokens + 1] ids, bos_id() first.
at::Tensor sample_texts(const LanguageModel& model, std::int64_t count, std::int64_t tokens,
                        double temperature, std::uint64_t seed);

}  // namespace embpriv
