#pragma once
// The noise settings shared by `gaussian` and `npgaussian`: inputs are clipped to L2 norm C,
// so any two inputs differ by at most Delta2 = 2C, and sigma is calibrated for (eps, delta)
// (GUIDE.md, sec. 5: C is always explicit).
#include "mechanisms/gaussian_calibration.h"
#include "mechanisms/mechanism.h"

namespace embpriv {

struct ClippedGaussianNoise {
  double delta;
  double clip_norm;
  GaussianCalibration calibration;

  // Checks delta in (0, 1) and C > 0; warns when the classic formula is used where it is not
  // proven (eps >= 1, for the system budget or the text budget alpha * eps).
  ClippedGaussianNoise(double delta, double clip_norm, GaussianCalibration calibration,
                       double epsilon, double alpha);
  double l2_sensitivity() const { return 2.0 * clip_norm; }
  double sigma(double epsilon) const {
    return gaussian_sigma(calibration, epsilon, delta, l2_sensitivity());
  }
  // The (eps, delta)-DP claim for inputs clipped to C; `released` adds what else leaks.
  PrivacyClaim claim(double epsilon, const char* released) const;
};

// The epsilon at which the analytic calibration (Balle & Wang 2018) gives noise of norm
// sigma sqrt(d) = share * C, i.e. sigma = share * C / sqrt(d).
double analytic_noise_share_epsilon(const ClippedGaussianNoise& noise, double share, std::int64_t d);

}  // namespace embpriv
