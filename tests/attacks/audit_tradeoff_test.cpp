// The tight audit (attacks/audit_tradeoff.h) on scores whose trade-off is known exactly: a
// Gaussian shift N(mu, 1) against N(0, 1) is exactly mu-GDP (Dong, Roth & Su 2022), a Laplace
// shift by eps is exactly eps-DP. Fixed seeds; bounds at confidence 0.95 (a correct bound lands
// above the truth with probability <= 5%; the seeds are fixed, so the outcome is too).
// Reference: gdp_epsilon(1, 1e-5) = 4.377178096, the analytic Gaussian of sigma 1 from
// tests/accounting/rdp_reference.py (scipy).
#include <boost/math/distributions/normal.hpp>

#include <cmath>

#include "attacks/audit.h"
#include "attacks/audit_tradeoff.h"
#include "core/rng.h"
#include "tests/catch.h"

using namespace embpriv;

namespace {

std::vector<double> shifted(std::int64_t n, double shift, bool laplace, std::uint64_t seed) {
  Rng rng(seed, 0);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = shift + (laplace ? rng.laplace() : rng.normal());
  return v;
}

double phi(double x) { return boost::math::cdf(boost::math::normal_distribution<double>(0.0, 1.0), x); }

}  // namespace

TEST_CASE("tight audit of a Gaussian shift: mu-GDP recovered, its trade-off curve, its (eps, delta)", "[attacks][audit]") {
  const std::int64_t n = 200000;
  const double mu = 1.0;
  const std::vector<double> s0 = shifted(n, mu, false, 11), s1 = shifted(n, 0, false, 12);
  const std::vector<double> select0 = shifted(n, mu, false, 13), select1 = shifted(n, 0, false, 14);
  const auto selection = tradeoff_points(select0, select1, 256);
  const GdpEstimate g = gdp_estimate(selection, s0, s1, n, 0.95, 1e-5);
  INFO("mu " << g.mu << " in [" << g.mu_low << ", " << g.mu_high << "]");
  CHECK(g.mu_low <= mu);
  CHECK(g.mu_high >= mu);
  CHECK(g.mu == Approx(mu).margin(0.03));
  CHECK(g.mu_high - g.mu_low < 0.1);
  CHECK(gdp_epsilon(1.0, 1e-5) == Approx(4.377178096).epsilon(1e-6));
  CHECK(g.eps_low <= gdp_epsilon(mu, 1e-5));
  CHECK(g.eps_low > 0.8 * gdp_epsilon(mu, 1e-5));
  // The measured trade-off curve follows beta = Phi(Phi^-1(1 - alpha) - mu) (DRS 2022, eq. 2.4).
  const auto measured = tradeoff_points(s0, s1, 64);
  for (const TradeoffPoint& p : measured) {
    const double alpha = static_cast<double>(p.above_x1) / n, beta = 1 - static_cast<double>(p.above_x0) / n;
    if (alpha < 0.01 || alpha > 0.99) continue;
    INFO("alpha " << alpha);
    CHECK(beta == Approx(phi(p.threshold - mu)).margin(0.005));  // beta = P[N(mu, 1) <= t]
    CHECK(alpha == Approx(1 - phi(p.threshold)).margin(0.005));
  }
  // The (eps, delta) lower bound over all thresholds stays below the Gaussian's true eps.
  CHECK(eps_lower_bound_over_thresholds(measured, n, 0.95, 1e-5) <= gdp_epsilon(mu, 1e-5));
  CHECK(gdp_epsilon(0, 1e-5) == 0);
  CHECK(std::isinf(gdp_epsilon(1, 0)));
}

TEST_CASE("tight audit of a Laplace shift: the bound over all thresholds, Bonferroni-corrected", "[attacks][audit]") {
  const std::int64_t n = 200000;
  const double eps = 1.0;  // Laplace(0, 1) shifted by 1: exactly 1-DP
  const auto points = tradeoff_points(shifted(n, eps, true, 21), shifted(n, 0, true, 22), 256);
  const double bound = eps_lower_bound_over_thresholds(points, n, 0.95, 0);
  CHECK(bound <= eps);
  CHECK(bound > 0.9 * eps);  // every threshold above the shift reaches the full loss
  // The correction: with m thresholds each ratio is taken at confidence 1 - 0.05 / (4 m).
  const std::vector<TradeoffPoint> one = {points[200]}, two = {points[200], points[200]};
  const std::int64_t a = points[200].above_x0, b = points[200].above_x1;
  CHECK(eps_lower_bound_over_thresholds(one, n, 0.95, 0) == Approx(std::max(0.0, audit_log_ratio_bound(a, n, b, n, 1 - 0.05 / 4, 0))));
  CHECK(eps_lower_bound_over_thresholds(two, n, 0.95, 0) == Approx(std::max(0.0, audit_log_ratio_bound(a, n, b, n, 1 - 0.05 / 8, 0))));
  CHECK(eps_lower_bound_over_thresholds(two, n, 0.95, 0) < eps_lower_bound_over_thresholds(one, n, 0.95, 0));
  CHECK_THROWS_WITH(tradeoff_points({1.0}, {2.0}, 1), Catch::Contains("at least 2 thresholds"));
}

TEST_CASE("tight audit: the Gaussian-DP lower end is NaN at delta = 0, where no bound applies", "[attacks][audit]") {
  // At delta = 0 mu-GDP gives eps = +inf for every mu > 0: a lower-bound column must not hold
  // +inf (a bound above every claim) there, but NaN. The point estimate keeps the true +inf.
  const std::int64_t n = 20000;
  const std::vector<double> s0 = shifted(n, 1.0, false, 31), s1 = shifted(n, 0, false, 32);
  const auto selection = tradeoff_points(shifted(n, 1.0, false, 33), shifted(n, 0, false, 34), 256);
  const GdpEstimate pure = gdp_estimate(selection, s0, s1, n, 0.95, 0);
  CHECK(pure.mu_low > 0.9);
  CHECK(std::isnan(pure.eps_low));
  CHECK(std::isinf(pure.eps));
  const GdpEstimate approx = gdp_estimate(selection, s0, s1, n, 0.95, 1e-5);
  CHECK(std::isfinite(approx.eps_low));
  // The same test at another confidence: equal at c, lower at a stricter one.
  CHECK(gdp_mu_lower_bound(approx, n, 0.95) == approx.mu_low);
  CHECK(gdp_mu_lower_bound(approx, n, 0.99) < approx.mu_low);
  CHECK(gdp_mu_lower_bound(approx, n, 0.99) > approx.mu_low - 0.05);
}
