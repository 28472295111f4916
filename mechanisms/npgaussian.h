#pragma once
// Norm-preserving Gaussian (vMF paper, Def. 7.3): y~ = clip(x) + N(0, sigma^2 I_d), then
// y = y~ / ||y~|| * ||x||. The deflection angle is random and depends on ||x|| (Prop. 7.1).
// The direction is post-processing of the Gaussian mechanism, hence (eps, delta)-DP; the norm
// ||x|| is released in the clear.
#include "mechanisms/clipped_gaussian_noise.h"

namespace embpriv {

class NormPreservingGaussianMechanism final : public Mechanism {
 public:
  NormPreservingGaussianMechanism(double epsilon, double delta, double clip_norm,
                                  GaussianCalibration calibration, double alpha = 1.0);
  const ClippedGaussianNoise& noise() const { return noise_; }
  double sigma() const { return noise_.sigma(epsilon()); }
  std::unique_ptr<RowKernel> make_kernel(double epsilon) const override;
  Prediction norm_kept() const override { return {1.0, "vMF paper, Def 7.3"}; }
  Prediction angle_depends_on_norm() const override { return {0.0, "vMF paper, Prop 7.1"}; }
  double clip_norm() const override { return noise_.clip_norm; }
  double epsilon_for_noise_share(double share, std::int64_t d) const override;
  NeighbouringPair neighbouring_pair(std::int64_t d, double distance) const override;

 protected:
  PrivacyClaim claim_at(double epsilon) const override;

 private:
  ClippedGaussianNoise noise_;
};

}  // namespace embpriv
