#pragma once
// The vMF paper's Algorithm 1 (orthogonal tangent-plane perturbation), exactly as published:
// decompose x = r mu, draw n ~ N(0, I_d), project it onto the tangent plane at mu and
// normalise it, deflect z = mu + lambda n_perp with lambda = beta / eps, renormalise, restore
// the norm r. Every output is at the same angle arctan(beta / eps) from x (Prop. 3.1).
//
// Honest label: the paper's Theorem 4.1 (eps * d_geo metric privacy) does NOT hold for this
// algorithm: its outputs lie on a ring around mu, so two different inputs have disjoint
// supports (docs/errata.md). claim() says "none" and names the paper's claim.
#include "mechanisms/mechanism.h"

namespace embpriv {

class VmfTangentMechanism final : public Mechanism {
 public:
  VmfTangentMechanism(double epsilon, double beta, double alpha = 1.0);
  double beta() const { return beta_; }
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
