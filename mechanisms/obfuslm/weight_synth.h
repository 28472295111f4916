#pragma once
// WeightSynth (ObfusLM, Algorithm WeightSynth): each row of a cluster S is replaced by a noisy
// mix of the cluster's rows. For member i, with sigma_ij = CosSim(x_i, x_j) over j in S:
//   u_j  = exp(eps sigma_ij / 2) / sum_l exp(eps sigma_il / 2)       (softmax weights)
//   u'_j = u_j + Laplace(Delta_u / eps),  Delta_u = max_j u_j - min_j u_j
//   w_j  = u'_j / sum_l u'_l          (normalization: sum; the published code; the default)
//   w_j  = u'_j / sum_l exp(u'_l)     (normalization: exp; the paper's text)
// and the synthesised row is x~_i = sum_j w_j x_j (W_obf = W E). docs/errata.md gives why
// `sum` is the default: its weights sum to 1 (an affine mix that keeps the rows' scale, and the
// identity for k = 1), while `exp` shrinks every row by about 1 / (|S| e^(1/|S|)).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "mechanisms/obfuslm/embed_cluster.h"

namespace embpriv {

enum class WeightNormalization { sum, exp };
WeightNormalization parse_weight_normalization(std::string_view name);  // "sum" | "exp"

// u and u' of one member, given its similarities sigma to the cluster's members (itself
// included); scale = Delta_u / eps (0 for a singleton: no draw is made).
struct NoisySoftmax {
  std::vector<double> u, noisy;
  double scale = 0;
};
NoisySoftmax noisy_softmax(const std::vector<double>& sigma, double epsilon, Rng& rng);
// w = u' / sum u' (sum) or u' / sum exp(u') (exp); denominator (optional): that normaliser.
std::vector<double> normalize_weights(std::vector<double> noisy, WeightNormalization normalization,
                                      double* denominator = nullptr);

// The weights w of one member given its similarities sigma to the cluster's members (itself
// included). Laplace draws come from rng; none are drawn when Delta_u = 0 (a singleton).
// denominator (optional): the normaliser used (sum u' or sum exp(u')).
std::vector<double> synthesis_weights(const std::vector<double>& sigma, double epsilon,
                                      WeightNormalization normalization, Rng& rng,
                                      double* denominator = nullptr);

struct SynthesisOptions {
  double epsilon = 1.0;
  WeightNormalization normalization = WeightNormalization::sum;
  std::uint64_t seed = 0;  // member i draws from Rng(seed, i): independent of threads and order
};

struct SynthesisStats {
  double max_abs_weight = 0;     // the largest |w_j| over every member (1 for k = 1)
  std::int64_t negative_sums = 0;  // members whose normaliser sum_l u'_l was < 0 (sum only)
};

// Rows of `table` [V, d] replaced by their synthesised mixes (float32, same order); `head`
// (optional, [V, d'] ) gets the same weights, W_head_obf = W H. Cosines are computed in double.
struct SynthesisedRows {
  at::Tensor embedding;
  at::Tensor head;  // undefined when no head was given
  SynthesisStats stats;
};
SynthesisedRows weight_synth(const at::Tensor& table, const at::Tensor& head, const Clusters& clusters,
                             const SynthesisOptions& options);

}  // namespace embpriv
