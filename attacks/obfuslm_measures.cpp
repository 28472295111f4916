#include "attacks/obfuslm_measures.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "attacks/distinguishing.h"
#include "attacks/nearest_rows.h"
#include "core/error.h"
#include "core/rng.h"
#include "metrics/recovery.h"

namespace embpriv {
namespace {

std::vector<std::int64_t> to_vector(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kLong).contiguous();
  return std::vector<std::int64_t>(c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel());
}

Neighbours nearest_public_rows(const at::Tensor& rows, const at::Tensor& table, const at::Tensor& special,
                               std::int64_t k) {
  KnnOptions knn;
  knn.k = k;
  knn.excluded = special;
  return nearest_rows(rows, table, knn);
}

// Top-1 / top-k recovery and mean ROUGE-L of a stream's guesses per token ([tokens, k]).
Recovery stream_recovery(const at::Tensor& per_token, const at::Tensor& special, std::int64_t k,
                         const std::vector<std::int64_t>& flat,
                         const std::vector<std::pair<std::size_t, std::size_t>>& spans) {
  const at::Tensor truth = at::tensor(flat, at::kLong);
  const at::Tensor counted = ~special.to(at::kBool).index_select(0, truth);
  Recovery r{top_k_recovery(truth, per_token, 1, counted), top_k_recovery(truth, per_token, k, counted), 0};
  const std::vector<std::int64_t> best = to_vector(per_token.select(1, 0));
  for (const auto& [begin, end] : spans) {
    r.rouge_l += rouge_l_f1(std::vector<std::int64_t>(flat.begin() + static_cast<std::ptrdiff_t>(begin),
                                                      flat.begin() + static_cast<std::ptrdiff_t>(end)),
                            std::vector<std::int64_t>(best.begin() + static_cast<std::ptrdiff_t>(begin),
                                                      best.begin() + static_cast<std::ptrdiff_t>(end)));
  }
  r.rouge_l /= static_cast<double>(std::max<std::size_t>(1, spans.size()));
  return r;
}

}  // namespace

Recovery attack_obfuscated_rows(const ObfuscatedVocabulary& v, const at::Tensor& table, const at::Tensor& special,
                                const at::Tensor& attacked, std::int64_t k, std::int64_t sample, std::uint64_t seed) {
  at::Tensor rows = attacked.to(at::kBool).nonzero().squeeze(1);
  EMBPRIV_CHECK(rows.numel() > 0, "obfuslm: no vocabulary row to attack");
  if (rows.numel() > sample) {
    // A seeded choice of `sample` rows (Fisher-Yates prefix), sorted for a stable order.
    std::vector<std::int64_t> all = to_vector(rows);
    Rng rng(seed, 0);
    for (std::int64_t i = 0; i < sample; ++i) {
      const auto n = static_cast<std::int64_t>(all.size());
      const std::int64_t j = std::min(n - 1, i + static_cast<std::int64_t>(rng.uniform() * static_cast<double>(n - i)));
      std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(j)]);
    }
    all.resize(static_cast<std::size_t>(sample));
    std::sort(all.begin(), all.end());
    rows = at::tensor(all, at::kLong);
  }
  // The server holds row pi[t] = token t's obfuscated row; the truth of that row is t.
  const Neighbours guesses =
      nearest_public_rows(v.server_embedding.index_select(0, v.encode(rows)), table, special, k);
  return {top_k_recovery(rows, guesses.indices, 1), top_k_recovery(rows, guesses.indices, k), 0};
}

Recovery attack_token_stream(const ObfuscatedVocabulary& v, const at::Tensor& table, const at::Tensor& special,
                             std::int64_t k, const std::vector<std::int64_t>& flat,
                             const std::vector<std::pair<std::size_t, std::size_t>>& spans) {
  EMBPRIV_CHECK(!flat.empty(), "obfuslm: the token stream is empty");
  const at::Tensor sent = v.encode(at::tensor(flat, at::kLong));  // what leaves the client
  // The server's attack: each distinct id it receives, mapped to the nearest public row.
  auto [distinct, position] = at::_unique(sent, /*sorted=*/true, /*return_inverse=*/true);
  const Neighbours guesses = nearest_public_rows(v.server_embedding.index_select(0, distinct), table, special, k);
  return stream_recovery(guesses.indices.index_select(0, position), special, k, flat, spans);
}

Recovery attack_perturbed_stream(const at::Tensor& sent_rows, const at::Tensor& table, const at::Tensor& special,
                                 std::int64_t k, const std::vector<std::int64_t>& flat,
                                 const std::vector<std::pair<std::size_t, std::size_t>>& spans) {
  EMBPRIV_CHECK(!flat.empty(), "obfuslm: the token stream is empty");
  EMBPRIV_CHECK(sent_rows.dim() == 2 && sent_rows.size(0) == static_cast<std::int64_t>(flat.size()),
                "obfuslm: " << flat.size() << " tokens need as many sent rows, got " << sent_rows.sizes());
  return stream_recovery(nearest_public_rows(sent_rows, table, special, k).indices, special, k, flat, spans);
}

AnonymityGame anonymity_game(const ObfuscatedVocabulary& v, const at::Tensor& table, const ObfuscationOptions& options,
                             std::int64_t clusters, std::int64_t trials, double confidence, std::uint64_t seed) {
  EMBPRIV_CHECK(trials >= 1, "obfuslm: the anonymity game needs trials >= 1");
  std::vector<std::int64_t> candidates;
  for (std::int64_t c = 0; c < v.clusters.count(); ++c) {
    if (v.clusters.size(c) >= 2) candidates.push_back(c);
  }
  Rng pick(seed, 0);
  for (std::size_t i = 0; i < candidates.size() && static_cast<std::int64_t>(i) < clusters; ++i) {
    const std::size_t j = std::min(candidates.size() - 1,
                                   i + static_cast<std::size_t>(pick.uniform() * static_cast<double>(candidates.size() - i)));
    std::swap(candidates[i], candidates[j]);
  }
  candidates.resize(std::min<std::size_t>(candidates.size(), static_cast<std::size_t>(std::max<std::int64_t>(0, clusters))));
  AnonymityGame game;
  game.pairs = static_cast<std::int64_t>(candidates.size());
  if (candidates.empty()) {
    game.accuracy = game.lower_bound_median = game.lower_bound_max = game.share_above_claim = std::nan("");
    return game;
  }
  const at::Tensor x = table.to(at::kDouble);
  const at::Tensor unit = x / x.norm(2, 1, true).clamp_min(1e-300);
  // Bonferroni: every pair's bound holds at once with probability >= confidence.
  const double per_pair = 1 - (1 - confidence) / static_cast<double>(candidates.size());
  std::vector<double> bounds;
  double accuracy = 0;
  for (std::int64_t c : candidates) {
    const auto first = v.clusters.members.begin() + v.clusters.offsets[c];
    const std::vector<std::int64_t> S(first, v.clusters.members.begin() + v.clusters.offsets[c + 1]);
    const at::Tensor ids = at::tensor(S, at::kLong);
    const at::Tensor Y = x.index_select(0, ids);
    const at::Tensor sigma = at::matmul(unit.index_select(0, ids), unit.index_select(0, ids).t()).contiguous();
    const auto m = static_cast<std::int64_t>(S.size());
    // Outputs of member `i` over the trials: WeightSynth's weights redrawn, times Y.
    const auto outputs = [&](std::int64_t i) {
      at::Tensor W = at::empty({trials, m}, at::kDouble);
      double* w = W.data_ptr<double>();
      const double* row = sigma.data_ptr<double>() + i * m;
      for (std::int64_t t = 0; t < trials; ++t) {
        Rng rng(derive_seed(seed, static_cast<std::uint64_t>(S[static_cast<std::size_t>(i)]), "anonymity"),
                static_cast<std::uint64_t>(t));
        const std::vector<double> weights =
            synthesis_weights(std::vector<double>(row, row + m), options.epsilon, options.normalization, rng);
        std::copy(weights.begin(), weights.end(), w + t * m);
      }
      return at::matmul(W, Y);
    };
    const at::Tensor a = Y[0], b = Y[1];
    const std::int64_t hits_a = count_nearer_to_first(outputs(0), a, b);
    const std::int64_t hits_b = count_nearer_to_first(outputs(1), a, b);
    accuracy += static_cast<double>(hits_a + trials - hits_b) / static_cast<double>(2 * trials);
    bounds.push_back(empirical_epsilon(hits_a, trials, hits_b, trials, per_pair).lower_bound);
  }
  std::sort(bounds.begin(), bounds.end());
  game.accuracy = accuracy / static_cast<double>(candidates.size());
  game.lower_bound_median = bounds[bounds.size() / 2];
  game.lower_bound_max = bounds.back();
  game.share_above_claim =
      static_cast<double>(std::count_if(bounds.begin(), bounds.end(), [&](double e) { return e > options.epsilon; })) /
      static_cast<double>(bounds.size());
  return game;
}

LanguageModelUtility obfuscated_model_utility(const LanguageModel& clean, const LanguageModel& server,
                                              const ObfuscatedVocabulary& v, const at::Tensor& texts) {
  // The server reads shuffled ids; its scores are over shuffled ids: the client unshuffles.
  const at::Tensor served = v.unshuffle_scores(server.forward_ids(v.encode(texts)));
  return compare_next_token_logits(texts, clean.forward_ids(texts), served);
}

std::vector<std::int64_t> generate_through_flow(const LanguageModel& server, const ObfuscatedVocabulary& v,
                                                const std::vector<std::int64_t>& prompt, std::int64_t tokens) {
  const std::vector<std::int64_t> shuffled = to_vector(v.encode(at::tensor(prompt, at::kLong)));
  const std::vector<std::int64_t> served = server.generate_greedy(shuffled, tokens);
  return to_vector(v.decode(at::tensor(served, at::kLong)));
}

}  // namespace embpriv
