#include "mechanisms/gaussian_calibration.h"

#include <boost/math/special_functions/erf.hpp>
#include <cmath>

#include "core/error.h"

namespace embpriv {

GaussianCalibration parse_gaussian_calibration(std::string_view name) {
  if (name == "classic") return GaussianCalibration::classic;
  if (name == "analytic") return GaussianCalibration::analytic;
  EMBPRIV_CHECK(false, "calibration must be 'classic' or 'analytic', got '" << name << "'");
  return GaussianCalibration::analytic;
}

const char* to_string(GaussianCalibration calibration) {
  return calibration == GaussianCalibration::classic ? "classic" : "analytic";
}

double classic_gaussian_sigma(double epsilon, double delta, double l2_sensitivity) {
  return l2_sensitivity * std::sqrt(2.0 * std::log(1.25 / delta)) / epsilon;
}

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

double analytic_gaussian_sigma(double epsilon, double delta, double l2_sensitivity) {
  // delta(sigma) decreases in sigma: bracket in log sigma, then bisect.
  double lo = l2_sensitivity * 1e-8, hi = l2_sensitivity;
  while (analytic_gaussian_delta(epsilon, hi, l2_sensitivity) > delta) {
    lo = hi;
    hi *= 2.0;
    EMBPRIV_ASSERT(std::isfinite(hi), "analytic Gaussian calibration did not bracket sigma");
  }
  while (analytic_gaussian_delta(epsilon, lo, l2_sensitivity) <= delta) {
    hi = lo;
    lo *= 0.5;
    EMBPRIV_ASSERT(lo > 0, "analytic Gaussian calibration did not bracket sigma");
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = std::sqrt(lo * hi);
    (analytic_gaussian_delta(epsilon, mid, l2_sensitivity) > delta ? lo : hi) = mid;
  }
  return hi;  // the side that satisfies the constraint
}

double gaussian_sigma(GaussianCalibration calibration, double epsilon, double delta,
                      double l2_sensitivity) {
  return calibration == GaussianCalibration::classic
             ? classic_gaussian_sigma(epsilon, delta, l2_sensitivity)
             : analytic_gaussian_sigma(epsilon, delta, l2_sensitivity);
}

}  // namespace embpriv

namespace embpriv {

double analytic_gaussian_epsilon(double sigma, double delta, double l2_sensitivity) {
  // delta(eps) decreases in eps: bisect in log eps over [1e-12, 1e12].
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
