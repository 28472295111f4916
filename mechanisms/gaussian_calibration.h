#pragma once
// Noise scale of the Gaussian mechanism y = f(x) + N(0, sigma^2 I) with L2 sensitivity Delta2.
// The exact (eps, delta) curve it inverts (analytic_gaussian_delta, analytic_gaussian_epsilon,
// log_normal_cdf) is in core/gaussian_privacy_profile.h, shared with accounting/.
#include <string_view>

#include "core/gaussian_privacy_profile.h"

namespace embpriv {

enum class GaussianCalibration { classic, analytic };

// Parses "classic" | "analytic".
GaussianCalibration parse_gaussian_calibration(std::string_view name);
const char* to_string(GaussianCalibration calibration);

// Classic: sigma = Delta2 sqrt(2 ln(1.25/delta)) / eps (Dwork & Roth 2014, Thm A.1; vMF paper,
// Def. 7.1). Proven only for eps < 1.
double classic_gaussian_sigma(double epsilon, double delta, double l2_sensitivity);

// Analytic Gaussian mechanism (Balle & Wang 2018, Thm 8): the smallest sigma with
// Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta) <= delta.
// Exact for every eps > 0; found by bisection to double precision.
double analytic_gaussian_sigma(double epsilon, double delta, double l2_sensitivity);

double gaussian_sigma(GaussianCalibration calibration, double epsilon, double delta,
                      double l2_sensitivity);

}  // namespace embpriv
