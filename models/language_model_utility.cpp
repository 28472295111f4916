#include "models/language_model_utility.h"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"

namespace embpriv {
namespace {

// exp of the mean negative log-likelihood of ids[:, 1:] under logits[:, :-1].
double perplexity(const at::Tensor& logits, const at::Tensor& ids) {
  const std::int64_t T = ids.size(1);
  const at::Tensor log_probs = at::log_softmax(logits.narrow(1, 0, T - 1).to(at::kDouble), -1);
  // The ids come from the CPU, the logits from the model's device: gather needs both on one.
  const at::Tensor nll = -log_probs.gather(-1, ids.narrow(1, 1, T - 1).unsqueeze(-1).to(log_probs.device()));
  return std::exp(nll.mean().item<double>());
}

// [B, T] bool: the positions whose logits are all finite (a position with a NaN or Inf logit
// has no next-token choice; torch's argmax would return the first NaN's index).
at::Tensor finite_positions(const at::Tensor& logits) { return at::isfinite(logits).all(-1); }

// The clean model's logits are the reference every position is compared with: a non-finite one
// is bad input (a broken model or table), refused naming the first such position.
void check_clean_logits_finite(const at::Tensor& clean_logits) {
  const at::Tensor bad = finite_positions(clean_logits).logical_not().nonzero();
  EMBPRIV_CHECK(bad.size(0) == 0, "the clean model's next-token logits hold NaN or Inf (first at sequence "
                                      << bad[0][0].item<std::int64_t>() << ", position "
                                      << bad[0][1].item<std::int64_t>() << "): the model or its input embeddings "
                                      << "are not finite");
}

// Share of positions where both models choose the same next token; a position where the other
// model's logits are not finite counts as a disagreement (it made no choice).
double next_token_agreement(const at::Tensor& clean_logits, const at::Tensor& other_logits) {
  const at::Tensor agree =
      (clean_logits.argmax(-1) == other_logits.argmax(-1)).logical_and(finite_positions(other_logits));
  return agree.to(at::kDouble).mean().item<double>();
}

}  // namespace

LanguageModelUtility compare_language_model(const LanguageModel& model, const at::Tensor& ids,
                                            const at::Tensor& perturbed) {
  EMBPRIV_CHECK(ids.dim() == 2 && ids.size(1) >= 2, "ids must be [B, T] with T >= 2, got " << ids.sizes());
  EMBPRIV_CHECK(perturbed.dim() == 3 && perturbed.size(0) == ids.size(0) && perturbed.size(1) == ids.size(1),
                "perturbed embeddings must be [B, T, dim] for ids " << ids.sizes() << ", got "
                                                                    << perturbed.sizes());
  return compare_next_token_logits(ids, model.forward_ids(ids), model.forward_embeddings(perturbed));
}

LanguageModelUtility compare_next_token_logits(const at::Tensor& ids, const at::Tensor& clean_logits,
                                               const at::Tensor& other_logits) {
  EMBPRIV_CHECK(ids.dim() == 2 && ids.size(1) >= 2, "ids must be [B, T] with T >= 2, got " << ids.sizes());
  EMBPRIV_CHECK(clean_logits.dim() == 3 && clean_logits.sizes() == other_logits.sizes() &&
                    clean_logits.size(0) == ids.size(0) && clean_logits.size(1) == ids.size(1),
                "logits must both be [B, T, vocab] for ids " << ids.sizes() << ", got " << clean_logits.sizes()
                                                             << " and " << other_logits.sizes());
  check_clean_logits_finite(clean_logits);
  LanguageModelUtility u;
  u.next_token_agreement = next_token_agreement(clean_logits, other_logits);
  u.perplexity_clean = perplexity(clean_logits, ids);
  u.perplexity_perturbed = perplexity(other_logits, ids);
  return u;
}

at::Tensor sample_texts(const LanguageModel& model, std::int64_t count, std::int64_t tokens,
                        double temperature, std::uint64_t seed) {
  EMBPRIV_CHECK(temperature > 0 && std::isfinite(temperature), "temperature must be > 0, got " << temperature);
  EMBPRIV_CHECK(count >= 1 && tokens >= 1 && tokens < model.max_sequence_length(),
                "texts: count must be >= 1 and tokens in [1, " << model.max_sequence_length() - 1 << "]");
  at::Tensor ids = at::full({count, 1}, model.bos_id(), at::kLong);  // <s>
  std::vector<Rng> rngs;
  for (std::int64_t i = 0; i < count; ++i) rngs.emplace_back(seed, static_cast<std::uint64_t>(i));
  for (std::int64_t t = 0; t < tokens; ++t) {
    const at::Tensor probs =
        at::softmax(model.forward_ids(ids).select(1, -1).to(at::kCPU, at::kDouble) / temperature, -1).contiguous();
    at::Tensor next = at::empty({count, 1}, at::kLong);
    for (std::int64_t i = 0; i < count; ++i) {
      // Inverse-CDF sampling with one uniform draw per token.
      const double* p = probs[i].data_ptr<double>();
      const double u = rngs[static_cast<std::size_t>(i)].uniform();
      double cumulative = 0;
      std::int64_t chosen = probs.size(1) - 1;
      for (std::int64_t v = 0; v < probs.size(1); ++v) {
        cumulative += p[v];
        if (u < cumulative) {
          chosen = v;
          break;
        }
      }
      next[i][0] = chosen;
    }
    ids = at::cat({ids, next}, 1);
  }
  return ids;
}

}  // namespace embpriv
