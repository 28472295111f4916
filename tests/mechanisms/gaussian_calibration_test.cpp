// Gaussian noise calibration: the classic formula and the analytic Gaussian mechanism.
#include "tests/catch.h"
#include <cmath>

#include "mechanisms/gaussian_calibration.h"

using namespace embpriv;

TEST_CASE("classic sigma is Delta2 sqrt(2 ln(1.25/delta)) / eps", "[mechanisms][gaussian]") {
  // Dwork & Roth, Thm A.1: eps = 0.5, delta = 1e-5, Delta2 = 2.
  CHECK(classic_gaussian_sigma(0.5, 1e-5, 2.0) ==
        Approx(2.0 * std::sqrt(2.0 * std::log(125000.0)) / 0.5).epsilon(1e-15));
}

TEST_CASE("analytic sigma is the smallest sigma meeting Balle & Wang's condition",
          "[mechanisms][gaussian]") {
  for (double eps : {0.05, 0.5, 1.0, 4.0, 50.0, 2000.0}) {
    for (double delta : {1e-3, 1e-5, 1e-9}) {
      INFO("eps = " << eps << ", delta = " << delta);
      const double sigma = analytic_gaussian_sigma(eps, delta, 2.0);
      CHECK(analytic_gaussian_delta(eps, sigma, 2.0) <= delta);
      // 1e-9 relatively smaller violates it: the bisection found the boundary.
      CHECK(analytic_gaussian_delta(eps, sigma * (1 - 1e-9), 2.0) > delta);
      // The analytic calibration never needs more noise than the classic one where the latter
      // is proven (Balle & Wang 2018, sec. 4).
      if (eps < 1) CHECK(sigma < classic_gaussian_sigma(eps, delta, 2.0));
      // analytic_gaussian_epsilon inverts it.
      CHECK(analytic_gaussian_epsilon(sigma, delta, 2.0) == Approx(eps).epsilon(1e-9));
    }
  }
}

TEST_CASE("log_normal_cdf is accurate in the far tail", "[mechanisms][gaussian]") {
  CHECK(log_normal_cdf(0.0) == Approx(std::log(0.5)).epsilon(1e-15));
  // Phi(-10) = 7.619853024160527e-24 (reference value).
  CHECK(log_normal_cdf(-10.0) == Approx(std::log(7.619853024160527e-24)).epsilon(1e-12));
  // Both branches agree at the switch point -20.
  CHECK(log_normal_cdf(-20.0 - 1e-9) == Approx(log_normal_cdf(-20.0 + 1e-9)).epsilon(1e-9));
  CHECK(std::isfinite(log_normal_cdf(-1e6)));
}
