#include "core/gaussian_privacy_profile.h"

#include <boost/math/special_functions/erf.hpp>
#include <cmath>

#include "core/error.h"

namespace embpriv {

double log_normal_cdf(double x) {
  if (x > -20.0) return std::log(0.5 * boost::math::erfc(-x / std::sqrt(2.0)));
  // Mills-ratio asymptotic series (Abramowitz & Stegun 26.2.12), five terms: the first omitted
  // term is 945 / x^10 < 1e-10 for x <= -20.
  const double inv_x2 = 1.0 / (x * x);
  const double series =
      1.0 - inv_x2 * (1.0 - 3.0 * inv_x2 * (1.0 - 5.0 * inv_x2 * (1.0 - 7.0 * inv_x2)));
  return -0.5 * x * x - std::log(-x) - 0.5 * std::log(2.0 * M_PI) + std::log(series);
}

double analytic_gaussian_delta(double epsilon, double sigma, double l2_sensitivity) {
  const double a = l2_sensitivity / (2.0 * sigma);
  const double b = epsilon * sigma / l2_sensitivity;
  // Balle & Wang (2018), Thm 8, with e^eps Phi(.) evaluated in log space (eps may be large).
  return std::exp(log_normal_cdf(a - b)) - std::exp(epsilon + log_normal_cdf(-a - b));
}

double analytic_gaussian_epsilon(double sigma, double delta, double l2_sensitivity) {
  // delta(eps) decreases in eps. At eps = 0 it is the total variation 2 Phi(Delta / (2 sigma)) - 1:
  // when that is within delta the exact eps is 0. Otherwise bisect in log eps over [1e-12, 1e12].
  if (analytic_gaussian_delta(0.0, sigma, l2_sensitivity) <= delta) return 0.0;
  double lo = 1e-12, hi = 1e12;
  if (analytic_gaussian_delta(lo, sigma, l2_sensitivity) <= delta) return lo;
  EMBPRIV_CHECK(analytic_gaussian_delta(hi, sigma, l2_sensitivity) <= delta,
                "sigma = " << sigma << " gives no (eps, " << delta << ")-DP for eps <= 1e12");
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = std::sqrt(lo * hi);
    (analytic_gaussian_delta(mid, sigma, l2_sensitivity) > delta ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace embpriv
