#pragma once
// Distinguishing games: how well an attacker who sees one output tells which of two secrets
// a and b produced it. From counts of an event O (e.g. "the output is nearer to a than to b")
// over trials under each secret, the empirical privacy loss
//   eps_hat = max( ln P[O|a] / P[O|b],  ln P[not O|b] / P[not O|a] )
// and a lower bound on it that holds with the given confidence (Clopper-Pearson intervals,
// Boost.Math): any mechanism that is eps-indistinguishable for a and b has eps >= the bound.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace embpriv {

struct EmpiricalEpsilon {
  double estimate = 0;     // eps_hat from the raw frequencies (+inf when one side never sees O)
  double lower_bound = 0;  // >= 0; valid with probability >= confidence
};

// hits_a of trials_a under secret a, hits_b of trials_b under secret b.
EmpiricalEpsilon empirical_epsilon(std::int64_t hits_a, std::int64_t trials_a, std::int64_t hits_b,
                                   std::int64_t trials_b, double confidence);

// The nearest-secret test: how many rows of outputs [R, d] have a larger cosine with a [d]
// than with b [d].
std::int64_t count_nearer_to_first(const at::Tensor& outputs, const at::Tensor& a, const at::Tensor& b);

}  // namespace embpriv
