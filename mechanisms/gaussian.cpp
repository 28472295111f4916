#include "mechanisms/gaussian.h"

#include <algorithm>

#include "mechanisms/row_math.h"
#include "mechanisms/theory.h"

namespace embpriv {
namespace {

class GaussianKernel final : public RowKernel {
 public:
  GaussianKernel(double sigma, double clip_norm) : sigma_(sigma), clip_norm_(clip_norm) {}
  void apply(const float* x, float* y, std::int64_t d, Rng& rng, double*) const override {
    // Clip to L2 norm C: x * min(1, C / ||x||).
    const double norm = std::sqrt(row::squared_norm(x, d));
    const double scale = norm > clip_norm_ ? clip_norm_ / norm : 1.0;
    for (std::int64_t j = 0; j < d; ++j) {
      y[j] = static_cast<float>(scale * x[j] + sigma_ * rng.normal());
    }
  }

 private:
  double sigma_;
  double clip_norm_;
};

}  // namespace

GaussianMechanism::GaussianMechanism(double epsilon, double delta, double clip_norm,
                                     GaussianCalibration calibration, double alpha)
    : Mechanism("gaussian", epsilon, alpha, /*needs_direction=*/false),
      noise_(delta, clip_norm, calibration, epsilon, alpha) {}

std::unique_ptr<RowKernel> GaussianMechanism::make_kernel(double epsilon) const {
  return std::make_unique<GaussianKernel>(noise_.sigma(epsilon), noise_.clip_norm);
}

// Thm 5.4 after clipping to L2 norm C: E||y||^2 = min(||x||^2, C^2) + d sigma^2.
Prediction GaussianMechanism::expected_squared_norm(double squared_norm, double, std::int64_t d,
                                                    double epsilon) const {
  const double c = noise_.clip_norm;
  const double clipped = std::min(squared_norm, c * c);
  return {gaussian_expected_squared_norm(clipped, d, noise_.sigma(epsilon)), "vMF paper, Thm 5.4"};
}

double GaussianMechanism::epsilon_for_noise_share(double share, std::int64_t d) const {
  return analytic_noise_share_epsilon(noise_, share, d);
}

NeighbouringPair GaussianMechanism::neighbouring_pair(std::int64_t d, double) const {
  return clipped_pair(d, noise_.clip_norm, claim());
}

PrivacyClaim GaussianMechanism::claim_at(double epsilon) const {
  return noise_.claim(epsilon, "");
}

}  // namespace embpriv
