#pragma once
// Exact von Mises-Fisher sampling around mu = x / ||x|| with kappa = eps / beta, norm restored:
// y = ||x|| (w mu + sqrt(1 - w^2) v), w from Wood (1994), v uniform on the unit sphere of the
// orthogonal complement of mu. O(d) per sample, no d x d rotation (GUIDE.md, sec. 5).
//
// Privacy: the density ratio of two outputs is exp(kappa (mu1 - mu2)^T z)
// <= exp(kappa ||mu1 - mu2||) <= exp(kappa d_geo(mu1, mu2)): kappa * d_geo metric privacy on
// directions, a true guarantee (unlike Algorithm 1). The norm is released in the clear.
#include "mechanisms/mechanism.h"

namespace embpriv {

class VmfMechanism final : public Mechanism {
 public:
  VmfMechanism(double epsilon, double beta, double alpha = 1.0);
  double beta() const { return beta_; }
  double kappa() const { return epsilon() / beta_; }
  std::unique_ptr<RowKernel> make_kernel(double epsilon) const override;
  Prediction norm_kept() const override;
  Prediction cosine(std::int64_t d, double epsilon) const override;
  Prediction dot_product_factor(std::int64_t d, double epsilon) const override;
  NeighbouringPair neighbouring_pair(std::int64_t d, double distance) const override;

 protected:
  PrivacyClaim claim_at(double epsilon) const override;

 private:
  double beta_;
};

}  // namespace embpriv
