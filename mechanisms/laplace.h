#pragma once
// The Laplace mechanism on embeddings (vMF paper, Def. 7.2): clip x to L1 norm C, so
// Delta1 = 2C, then add i.i.d. Laplace(0, b) noise with b = Delta1 / eps: pure eps-DP.
#include "mechanisms/mechanism.h"

namespace embpriv {

class LaplaceMechanism final : public Mechanism {
 public:
  LaplaceMechanism(double epsilon, double clip_norm, double alpha = 1.0);
  double clip_norm() const override { return clip_norm_; }
  // b = Delta1 / eps with Delta1 = 2C.
  double scale(double epsilon) const { return 2.0 * clip_norm_ / epsilon; }
  double scale() const { return scale(epsilon()); }
  std::unique_ptr<RowKernel> make_kernel(double epsilon) const override;
  Prediction expected_squared_norm(double squared_norm, double l1_norm, std::int64_t d,
                                   double epsilon) const override;
  bool noise_is_additive() const override { return true; }
  NeighbouringPair neighbouring_pair(std::int64_t d, double distance) const override;

 protected:
  PrivacyClaim claim_at(double epsilon) const override;

 private:
  double clip_norm_;
};

}  // namespace embpriv
