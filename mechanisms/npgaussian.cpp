#include "mechanisms/npgaussian.h"

#include "mechanisms/row_math.h"

namespace embpriv {
namespace {

class NormPreservingKernel final : public RowKernel {
 public:
  NormPreservingKernel(double sigma, double clip_norm) : sigma_(sigma), clip_norm_(clip_norm) {}
  void apply(const float* x, float* y, std::int64_t d, Rng& rng, double* v) const override {
    const double norm = std::sqrt(row::squared_norm(x, d));
    const double scale = norm > clip_norm_ ? clip_norm_ / norm : 1.0;
    for (std::int64_t j = 0; j < d; ++j) v[j] = scale * x[j] + sigma_ * rng.normal();
    const double noisy_squared = row::sum(d, [v](std::int64_t j) { return v[j] * v[j]; });
    // Def. 7.3: restore the original norm ||x||.
    const double restore = norm / std::sqrt(noisy_squared);
    for (std::int64_t j = 0; j < d; ++j) y[j] = static_cast<float>(restore * v[j]);
  }

 private:
  double sigma_;
  double clip_norm_;
};

}  // namespace

NormPreservingGaussianMechanism::NormPreservingGaussianMechanism(
    double epsilon, double delta, double clip_norm, GaussianCalibration calibration, double alpha)
    : Mechanism("npgaussian", epsilon, alpha, /*needs_direction=*/true),
      noise_(delta, clip_norm, calibration, epsilon, alpha) {}

std::unique_ptr<RowKernel> NormPreservingGaussianMechanism::make_kernel(double epsilon) const {
  return std::make_unique<NormPreservingKernel>(noise_.sigma(epsilon), noise_.clip_norm);
}

double NormPreservingGaussianMechanism::epsilon_for_noise_share(double share, std::int64_t d) const {
  return analytic_noise_share_epsilon(noise_, share, d);
}

NeighbouringPair NormPreservingGaussianMechanism::neighbouring_pair(std::int64_t d, double) const {
  return clipped_pair(d, noise_.clip_norm, claim());
}

PrivacyClaim NormPreservingGaussianMechanism::claim_at(double epsilon) const {
  return noise_.claim(epsilon, "covers the direction only: the norm ||x|| is released in the "
                               "clear");
}

}  // namespace embpriv
