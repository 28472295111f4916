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

#include <array>
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
  // The outputs are the input plus Gaussian noise (of any scale, known or not): every test then
  // sees the trade-off of one Gaussian shift (Dong, Roth & Su 2022, Thm 2.7), so the Gaussian-DP
  // lower end is a lower bound on the pair's eps, not only an estimate (attacks/audit_tradeoff.h).
  bool gaussian_noise = false;
};

// Which ratio of a test O = {statistic > threshold} a bound reads: O or its complement, made
// likelier by x0 or by x1. Each is ln(P[E | x_i] / P[E | x_j]) for E = O or not O.
enum class TestSide {
  event_favours_x0,       // ln(P[O | x0] / P[O | x1])
  event_favours_x1,       // ln(P[O | x1] / P[O | x0])
  complement_favours_x0,  // ln(P[not O | x0] / P[not O | x1])
  complement_favours_x1,  // ln(P[not O | x1] / P[not O | x0])
};
constexpr std::array<TestSide, 4> kTestSides = {TestSide::event_favours_x0, TestSide::event_favours_x1,
                                                TestSide::complement_favours_x0, TestSide::complement_favours_x1};
const char* test_side_name(TestSide side);

// The lower bound of one side from the counts of O: hits_x0 and hits_x1 of n trials under each
// input (audit_log_ratio_bound on the side's numerator and denominator).
double side_log_ratio_bound(TestSide side, std::int64_t hits_x0, std::int64_t hits_x1, std::int64_t n,
                            double confidence, double delta);

// The largest of the sound lower bounds of one audit, and which one it is. The bounds that hold
// whatever the mechanism are the selected test's ("eps_lower_bound") and the one over every
// threshold ("eps_lower_bound_all_thresholds"); the Gaussian-DP lower end ("gdp_eps_low") is a
// bound too when AuditOptions::gaussian_noise says so and the claim has delta > 0. With k such
// bounds each is recomputed at confidence 1 - (1 - c) / k on the same tests, so that all hold
// together, and their maximum with them, with probability >= c (union bound).
struct BestBound {
  double eps_lower_bound = 0;  // >= 0
  std::string name;            // the column whose test gives it (ties: the first in the order above)
  int bounds = 0;              // k
};

struct AuditResult {
  double eps_lower_bound = 0;    // >= 0; from the measurement half only, the selected test
  double eps_estimate = 0;       // the same ratio from the raw frequencies (may be +inf)
  std::string test;              // the chosen statistic, e.g. "projection"
  TestSide side = TestSide::event_favours_x0;  // the chosen ratio of that statistic's test
  double threshold = 0;
  std::int64_t hits_x0 = 0, hits_x1 = 0, trials = 0;  // O = {statistic > threshold}, second half
  // The chosen statistic's every threshold on the measurement half (attacks/audit_tradeoff.h):
  double eps_lower_bound_all_thresholds = 0;  // Bonferroni over the thresholds and sides
  GdpEstimate gdp;                            // mu-GDP at a threshold chosen on the selection half
  std::vector<double> tradeoff_alpha, tradeoff_beta;  // P[O | x1], P[not O | x0] per threshold
  BestBound best;  // what a verdict on the claim reads (above: the claim is false, at confidence c)
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
