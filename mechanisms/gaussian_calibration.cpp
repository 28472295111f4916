#include "mechanisms/gaussian_calibration.h"

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
