#pragma once
// The tight part of the privacy audit (attacks/audit.h): from one statistic's scores under x0 and
// x1 on the measurement half, every test O = {score > t} at once.
//   - The empirical trade-off curve (Dong, Roth & Su 2022, Def. 2.1): for each threshold the
//     type I error alpha = P[O | x1] and type II error beta = P[not O | x0].
//   - An eps lower bound at delta over all m thresholds and the 4 sides: each of the 8 m
//     one-sided Clopper-Pearson bounds fails with probability (1 - c) / (8 m) (Bonferroni), so
//     the maximum holds with probability >= c.
//   - A Gaussian-DP estimate: a mu-GDP mechanism has beta >= Phi(Phi^-1(1 - alpha) - mu) for every
//     test (DRS 2022, Def. 2.7), i.e. mu >= Phi^-1(P0(O)) - Phi^-1(P1(O)); mu and its interval at
//     one threshold chosen beforehand, converted to (eps, delta) by DRS 2022, Cor. 2.13 (the
//     analytic Gaussian of sigma = 1/mu, Balle & Wang 2018). For Gaussian-like mechanisms; for
//     others mu is only the GDP that the chosen test sees.
#include <cstdint>
#include <vector>

namespace embpriv {

struct TradeoffPoint {
  double threshold = 0;
  std::int64_t above_x0 = 0, above_x1 = 0;  // scores > threshold under x0, under x1
};

// Thresholds at `count` evenly spaced ranks of the pooled scores (both ends included).
std::vector<TradeoffPoint> tradeoff_points(const std::vector<double>& scores_x0, const std::vector<double>& scores_x1,
                                           std::int64_t count);

// max over the points and the 4 sides (O or its complement, favouring x0 or x1) of
// ln((lower(P_i) - delta) / upper(P_j)), every bound at failure (1 - c) / (8 points.size());
// >= 0. n: trials under each input.
double eps_lower_bound_over_thresholds(const std::vector<TradeoffPoint>& points, std::int64_t n, double confidence,
                                       double delta);

struct GdpEstimate {
  double mu = 0, mu_low = 0, mu_high = 0;  // the point estimate and its interval at confidence c
  // (eps, delta) of mu-GDP at the audit's delta, from mu and mu_low. eps_low is a lower bound and
  // NaN where none applies: at delta = 0 every mu > 0 gives eps = +inf (gdp_epsilon), which
  // bounds nothing.
  double eps = 0, eps_low = 0;
  double threshold = 0;
  int sign = 1;                             // +1: O = {score > threshold} favours x0; -1: x1
  std::int64_t above_x0 = 0, above_x1 = 0;  // the measurement half's counts at the threshold
};

// mu at the point that maximises the lower end of mu on `selection` (scores of the selection
// half), measured at that threshold on `measurement`: the four one-sided bounds each fail
// with (1 - c) / 4. Signed so that mu >= 0 favours whichever input the selection found.
GdpEstimate gdp_estimate(const std::vector<TradeoffPoint>& selection, const std::vector<double>& scores_x0,
                         const std::vector<double>& scores_x1, std::int64_t n, double confidence, double delta);

// mu_low of the same test (threshold and side) at another confidence, from its stored counts.
double gdp_mu_lower_bound(const GdpEstimate& g, std::int64_t n, double confidence);

// The eps of mu-GDP at delta (DRS 2022, Cor. 2.13): 0 for mu <= 0, +inf for delta = 0 or mu = inf.
double gdp_epsilon(double mu, double delta);

}  // namespace embpriv
