#pragma once
// The Gaussian mechanism on embeddings (vMF paper, Def. 7.1): clip x to L2 norm C, then
// y = clip(x) + N(0, sigma^2 I_d), sigma calibrated for (eps, delta) with Delta2 = 2C.
#include "mechanisms/clipped_gaussian_noise.h"

namespace embpriv {

class GaussianMechanism final : public Mechanism {
 public:
  GaussianMechanism(double epsilon, double delta, double clip_norm,
                    GaussianCalibration calibration, double alpha = 1.0);
  const ClippedGaussianNoise& noise() const { return noise_; }
  double sigma() const { return noise_.sigma(epsilon()); }
  std::unique_ptr<RowKernel> make_kernel(double epsilon) const override;
  Prediction expected_squared_norm(double squared_norm, double l1_norm, std::int64_t d,
                                   double epsilon) const override;
  double clip_norm() const override { return noise_.clip_norm; }
  bool noise_is_additive() const override { return true; }
  double epsilon_for_noise_share(double share, std::int64_t d) const override;
  NeighbouringPair neighbouring_pair(std::int64_t d, double distance) const override;

 protected:
  PrivacyClaim claim_at(double epsilon) const override;

 private:
  ClippedGaussianNoise noise_;
};

}  // namespace embpriv
