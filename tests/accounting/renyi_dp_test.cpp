// The RDP accountant (accounting/renyi_dp.h) against values computed independently by
// tests/accounting/rdp_reference.py (numpy/scipy, the papers' formulas), against closed forms,
// against the moments-accountant example of Abadi et al. 2016, and against the exact eps of the
// composed Gaussian (analytic Gaussian, Balle & Wang 2018), which no valid RDP bound may undercut.
#include <cmath>
#include <limits>

#include "accounting/renyi_dp.h"
#include "core/gaussian_privacy_profile.h"
#include "tests/catch.h"

using namespace embpriv;

TEST_CASE("RDP of the Gaussian and the tight conversion, against rdp_reference.py", "[accounting]") {
  CHECK(gaussian_rdp(3, 2) == Approx(3.0 / 8));  // alpha / (2 sigma^2)
  // One round, sigma = 1, delta = 1e-5: alpha = 5.43 by the reference's bounded search.
  const RdpAccount one = gaussian_rdp_account(1.0, 1, 1e-5);
  CHECK(one.epsilon == Approx(4.728386985).epsilon(1e-8));
  CHECK(one.alpha == Approx(5.43185).epsilon(1e-3));
  CHECK(gaussian_rdp_account(1.0, 100, 1e-5).epsilon == Approx(96.03527068).epsilon(1e-8));
  CHECK(gaussian_rdp_account(4.0, 10000, 1e-5).epsilon == Approx(429.7187314).epsilon(1e-8));
  CHECK(gaussian_rdp_account(0.5, 10, 1e-6).epsilon == Approx(51.71940446).epsilon(1e-8));
  // The conversion at one order, by hand: rdp 1, alpha 2, delta e^-10: 1 + log(1/2) + (10 - log 2) / 1.
  CHECK(rdp_to_dp_epsilon(2, 1, std::exp(-10.0)) == Approx(1 + std::log(0.5) + 10 - std::log(2.0)));
  CHECK(rdp_to_dp_epsilon_classic(2, 1, std::exp(-10.0)) == Approx(11));
  // Brent's minimum is the minimum of a dense grid of orders.
  double grid_min = std::numeric_limits<double>::infinity();
  for (double a = 1.001; a < 200; a *= 1.0005) grid_min = std::min(grid_min, rdp_to_dp_epsilon(a, 100 * gaussian_rdp(a, 1.0), 1e-5));
  CHECK(gaussian_rdp_account(1.0, 100, 1e-5).epsilon <= grid_min + 1e-9);
  CHECK(gaussian_rdp_account(1.0, 100, 1e-5).epsilon > grid_min - 1e-4);
}

TEST_CASE("RDP of the Poisson-subsampled Gaussian (MTZ 2019, integer alpha), against rdp_reference.py", "[accounting]") {
  CHECK(subsampled_gaussian_rdp(2, 0.01, 4.0) == Approx(6.44942509417e-06).epsilon(1e-9));
  CHECK(subsampled_gaussian_rdp(32, 0.01, 4.0) == Approx(0.000105263606591).epsilon(1e-9));
  CHECK(subsampled_gaussian_rdp(8, 0.1, 1.0) == Approx(1.37836141135).epsilon(1e-9));
  CHECK(subsampled_gaussian_rdp(256, 0.001, 0.8) == Approx(193.065155485).epsilon(1e-9));
  // alpha = 2 in closed form: log(1 + q^2 (e^(1/sigma^2) - 1)).
  CHECK(subsampled_gaussian_rdp(2, 0.3, 1.5) == Approx(std::log1p(0.09 * std::expm1(1 / 2.25))).epsilon(1e-12));
  // q = 1 is the plain Gaussian.
  CHECK(subsampled_gaussian_rdp(7, 1.0, 2.0) == Approx(gaussian_rdp(7, 2.0)));
  CHECK(subsampled_gaussian_rdp(7, 0.999999, 2.0) == Approx(gaussian_rdp(7, 2.0)).epsilon(1e-5));
  const RdpAccount abadi = subsampled_gaussian_rdp_account(4.0, 0.01, 10000, 1e-5);
  CHECK(abadi.epsilon == Approx(1.035490066).epsilon(1e-8));
  CHECK(abadi.alpha == 17);
  // Optima at fractional orders (4.7, 8.2): the series of the next test case.
  const RdpAccount fractional = subsampled_gaussian_rdp_account(1.1, 0.01, 10000, 1e-5);
  CHECK(fractional.epsilon == Approx(5.631992369).epsilon(1e-7));
  CHECK(fractional.alpha == Approx(4.7));
  CHECK(subsampled_gaussian_rdp_account(2.0, 0.05, 500, 1e-6).epsilon == Approx(3.101868254).epsilon(1e-7));
  CHECK(subsampled_gaussian_rdp_account(4.0, 0.01, 100, 1e-5).epsilon == Approx(0.08965969449).epsilon(1e-7));
}

TEST_CASE("RDP of the subsampled Gaussian at fractional orders (MTZ 2019 series), against numerical integration", "[accounting]") {
  // References: rdp_reference.py integrates A_alpha = E_{z ~ N(0, sigma^2)}[((1-q) + q e^((2z-1)/(2 sigma^2)))^alpha]
  // with mpmath at 40 digits (the definition, not the series).
  CHECK(subsampled_gaussian_rdp_real(2.5, 0.01, 4.0) == Approx(8.0644097585e-06).epsilon(1e-8));
  CHECK(subsampled_gaussian_rdp_real(1.5, 0.1, 1.0) == Approx(0.0117345921967).epsilon(1e-8));
  CHECK(subsampled_gaussian_rdp_real(7.3, 0.05, 2.0) == Approx(0.00281452510992).epsilon(1e-8));
  // Integer orders: the finite sum (the integral gives 1.37836141135 too).
  CHECK(subsampled_gaussian_rdp_real(8, 0.1, 1.0) == Approx(1.37836141135).epsilon(1e-9));
  // RDP grows with the order: the series lies between its integer neighbours.
  for (const double alpha : {2.3, 3.5, 6.9, 11.1}) {
    const auto below = static_cast<std::int64_t>(alpha);
    INFO(alpha);
    CHECK(subsampled_gaussian_rdp_real(alpha, 0.05, 1.5) >= subsampled_gaussian_rdp(below, 0.05, 1.5));
    CHECK(subsampled_gaussian_rdp_real(alpha, 0.05, 1.5) <= subsampled_gaussian_rdp(below + 1, 0.05, 1.5));
  }
  CHECK(subsampled_gaussian_rdp_real(3.5, 1.0, 2.0) == Approx(gaussian_rdp(3.5, 2.0)));
}

TEST_CASE("the moments-accountant example of Abadi et al. 2016: q 0.01, sigma 4, 10,000 steps, eps 1.26", "[accounting]") {
  // Abadi et al. report eps ~ 1.26 at delta 1e-5 with the conversion of their moments
  // accountant, i.e. Mironov's Prop. 3 at integer orders; the tight conversion gives less.
  double classic = std::numeric_limits<double>::infinity();
  for (const std::int64_t a : integer_rdp_orders()) {
    classic = std::min(classic, rdp_to_dp_epsilon_classic(static_cast<double>(a), 10000 * subsampled_gaussian_rdp(a, 0.01, 4.0), 1e-5));
  }
  CHECK(classic == Approx(1.26).margin(0.005));
  CHECK(subsampled_gaussian_rdp_account(4.0, 0.01, 10000, 1e-5).epsilon < classic - 0.2);
}

TEST_CASE("the RDP bound is never below the exact eps of the composed Gaussian (analytic Gaussian)", "[accounting]") {
  // T rounds of noise multiplier sigma = one round of sigma / sqrt(T) (Delta2 = 1). Reference
  // analytic values from rdp_reference.py: 4.377178096, 91.81728962, 418.1993097, 49.31927666.
  struct Case { double sigma; std::int64_t rounds; double delta, exact; };
  for (const Case& c : {Case{1.0, 1, 1e-5, 4.377178096}, Case{1.0, 100, 1e-5, 91.81728962},
                        Case{4.0, 10000, 1e-5, 418.1993097}, Case{0.5, 10, 1e-6, 49.31927666}}) {
    const double exact = analytic_gaussian_epsilon(c.sigma / std::sqrt(static_cast<double>(c.rounds)), c.delta, 1.0);
    CHECK(exact == Approx(c.exact).epsilon(1e-6));
    const double rdp = gaussian_rdp_account(c.sigma, c.rounds, c.delta).epsilon;
    CHECK(rdp >= exact);
    CHECK(rdp < 1.1 * exact);  // and RDP is not far off for the Gaussian
    CHECK(subsampled_gaussian_rdp_account(c.sigma, 1.0, c.rounds, c.delta).epsilon >= exact);
  }
}

TEST_CASE("accountant inputs are checked", "[accounting]") {
  CHECK_THROWS_WITH(gaussian_rdp_account(0, 1, 1e-5), Catch::Contains("sigma must be finite and > 0, got 0"));
  CHECK_THROWS_WITH(gaussian_rdp_account(std::nan(""), 1, 1e-5), Catch::Contains("sigma must be finite and > 0"));
  CHECK_THROWS_WITH(gaussian_rdp_account(1, 0, 1e-5), Catch::Contains("rounds must be >= 1, got 0"));
  CHECK_THROWS_WITH(gaussian_rdp_account(1, 1, 1), Catch::Contains("delta must be in (0, 1), got 1"));
  CHECK_THROWS_WITH(subsampled_gaussian_rdp_account(1, 0, 1, 1e-5), Catch::Contains("sampling rate must be in (0, 1], got 0"));
  CHECK_THROWS_WITH(subsampled_gaussian_rdp_account(1, 1.5, 1, 1e-5), Catch::Contains("sampling rate must be in (0, 1]"));
  CHECK_THROWS_WITH(subsampled_gaussian_rdp(1, 0.5, 1), Catch::Contains("order must be >= 2"));
}
