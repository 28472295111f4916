#pragma once
// A privacy audit: a lower bound on the real epsilon of a mechanism from a distinguishing game
// between two neighbouring inputs x0 and x1 (Jagielski et al. 2020; Nasr et al. 2021). The
// mechanism is run `trials` times on each input, twice: on the first half the audit picks the
// best of a family of tests (a statistic of the output, a threshold, a side), on the second it
// counts how often that test fires under x0 and under x1 and turns the counts into
//   eps_lower_bound = ln( (lower(P[O | x_i]) - delta) / upper(P[O | x_j]) )
// with Clopper-Pearson intervals (Boost.Math), valid with probability >= confidence whatever
// the mechanism. A mechanism that keeps its (eps, delta) promise for x0, x1 stays below eps.
// The attack never sees a mechanism: it asks a sampler for outputs (GUIDE.md, sec. 2).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attacks/audit_tradeoff.h"

namespace embpriv {

// trials outputs [trials, d] of the mechanism on input `which` (0: x0, 1: x1), drawn from `seed`.
using OutputSampler = std::function<at::Tensor(int which, std::int64_t trials, std::uint64_t seed)>;

struct AuditOptions {
  std::int64_t trials = 20000;   // outputs per input, in each half
  double confidence = 0.95;      // of the lower bound (both intervals together)
  double delta = 0;              // of the claim being audited ((eps, delta)-DP)
  std::int64_t thresholds = 256; // candidate thresholds per statistic
};

struct AuditResult {
  double eps_lower_bound = 0;    // >= 0; from the measurement half only, the selected test
  double eps_estimate = 0;       // the same ratio from the raw frequencies (may be +inf)
  std::string test;              // the chosen statistic, e.g. "projection"
  double threshold = 0;
  std::int64_t hits_x0 = 0, hits_x1 = 0, trials = 0;  // O = {statistic > threshold}, second half
  // The chosen statistic's every threshold on the measurement half (attacks/audit_tradeoff.h):
  double eps_lower_bound_all_thresholds = 0;  // Bonferroni over the thresholds and sides
  GdpEstimate gdp;                            // mu-GDP at a threshold chosen on the selection half
  std::vector<double> tradeoff_alpha, tradeoff_beta;  // P[O | x1], P[not O | x0] per threshold
};

// Statistics: the projection onto x0 - x1, the cosine to x0, cos(y, x0) - cos(y, x1), and the
// distance of cos(y, x0) (and cos(y, x1)) to its median under x0 (x1): the last ones catch a
// mechanism that puts every output at one fixed angle from its input.
AuditResult audit_pair(const OutputSampler& sample, const at::Tensor& x0, const at::Tensor& x1,
                       const AuditOptions& options, std::uint64_t seed);

// ln((lower(hits_num / n_num) - delta) / upper(hits_den / n_den)), each bound one-sided
// Clopper-Pearson at level 1 - (1 - confidence) / 2, so that both hold together with
// probability >= confidence; -inf when the numerator is <= 0. A perfect test (n of n against
// 0 of n) gives ln(n / -ln((1 - confidence) / 2)) to first order: ln(n / 3.69) at 0.95.
double audit_log_ratio_bound(std::int64_t hits_num, std::int64_t n_num, std::int64_t hits_den, std::int64_t n_den,
                             double confidence, double delta);

}  // namespace embpriv
