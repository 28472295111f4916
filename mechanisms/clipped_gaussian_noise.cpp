#include "mechanisms/clipped_gaussian_noise.h"

#include <cmath>
#include <sstream>

#include "core/log.h"
#include "core/params.h"

namespace embpriv {

ClippedGaussianNoise::ClippedGaussianNoise(double delta_, double clip_norm_,
                                           GaussianCalibration calibration_, double epsilon,
                                           double alpha)
    : delta(require_open_interval("delta", delta_, 0.0, 1.0)),
      clip_norm(require_positive("clip_norm", clip_norm_)),
      calibration(calibration_) {
  const double largest_epsilon = std::max(epsilon, alpha * epsilon);
  if (calibration == GaussianCalibration::classic && largest_epsilon >= 1.0) {
    std::ostringstream message;
    message << "calibration: classic is only proven for eps < 1 (Dwork & Roth, Thm A.1), "
               "used here with eps = "
            << largest_epsilon << "; calibration: analytic is exact for every eps";
    warn(message.str());
  }
}

PrivacyClaim ClippedGaussianNoise::claim(double epsilon, const char* released) const {
  std::ostringstream neighbours, note;
  neighbours << "any two inputs after clipping to L2 norm C = " << clip_norm
             << " (Delta2 = 2C)";
  note << to_string(calibration) << " calibration, sigma = " << sigma(epsilon);
  if (calibration == GaussianCalibration::classic && epsilon >= 1.0) {
    note << "; NOT proven: the classic formula needs eps < 1";
  }
  if (released && *released) note << "; " << released;
  PrivacyClaim claim{"approx_dp", epsilon, delta, neighbours.str(), note.str()};
  claim.sigma = sigma(epsilon);
  claim.l2_sensitivity = l2_sensitivity();
  claim.epsilon_actual = analytic_gaussian_epsilon(claim.sigma, delta, claim.l2_sensitivity);
  claim.epsilon_actual_source = "analytic Gaussian eps of the noise used (Balle & Wang 2018, Thm 8)";
  return claim;
}

double analytic_noise_share_epsilon(const ClippedGaussianNoise& noise, double share, std::int64_t d) {
  const double sigma = share * noise.clip_norm / std::sqrt(static_cast<double>(d));
  return analytic_gaussian_epsilon(sigma, noise.delta, noise.l2_sensitivity());
}

}  // namespace embpriv
