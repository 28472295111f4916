#include "mechanisms/vmf.h"

#include "core/params.h"
#include "mechanisms/row_math.h"
#include "mechanisms/theory.h"
#include "mechanisms/wood_sampler.h"

namespace embpriv {
namespace {

class VmfKernel final : public RowKernel {
 public:
  explicit VmfKernel(double kappa) : kappa_(kappa) {}
  void apply(const float* x, float* y, std::int64_t d, Rng& rng, double* v) const override {
    const WoodSampler sampler(kappa_, d);  // a few flops: cheaper than caching per d
    const WoodSampler::Draw w = sampler.draw(rng);
    // v: uniform unit vector orthogonal to mu (as Algorithm 1, step 2);
    // y = r (w mu + sqrt(1 - w^2) v), so ||y|| = r.
    const row::Tangent t = row::draw_tangent(x, d, rng, v);
    row::write_combination(x, v, t, t.r * w.w, t.r * std::sqrt(w.one_minus_w2), d, y);
  }

 private:
  double kappa_;
};

}  // namespace

VmfMechanism::VmfMechanism(double epsilon, double beta, double alpha)
    : Mechanism("vmf", epsilon, alpha, /*needs_direction=*/true),
      beta_(require_positive("beta", beta)) {
  // kappa = eps / beta can overflow to inf for finite eps and beta (1e300 / 1e-10), where
  // Wood's sampler has no meaning: refused here, before any work, for both budgets (text rows
  // use alpha * eps, vMF paper, Def. 6.1).
  require_positive("kappa = epsilon / beta", epsilon_for(Modality::visual) / beta_);
  require_positive("kappa = alpha * epsilon / beta", epsilon_for(Modality::text) / beta_);
}

std::unique_ptr<RowKernel> VmfMechanism::make_kernel(double epsilon) const {
  // kappa = eps / beta; the text budget alpha * eps may overflow it where eps alone did not.
  return std::make_unique<VmfKernel>(require_positive("kappa = epsilon / beta", epsilon / beta_));
}

Prediction VmfMechanism::norm_kept() const { return {1.0, "exact vMF, norm restored"}; }

Prediction VmfMechanism::cosine(std::int64_t d, double epsilon) const {
  return {vmf_mean_resultant(d, epsilon / beta_), "E[mu.z] = A_d(kappa) (Wood 1994)"};
}

Prediction VmfMechanism::dot_product_factor(std::int64_t d, double epsilon) const {
  return {dot_product_factor_vmf(d, epsilon / beta_), "Thm 5.3 for vMF: factor A_d(kappa)^2"};
}

// kappa * t metric privacy between two directions at geodesic distance t.
NeighbouringPair VmfMechanism::neighbouring_pair(std::int64_t d, double distance) const {
  return direction_pair(d, distance, claim().epsilon);
}

PrivacyClaim VmfMechanism::claim_at(double epsilon) const {
  PrivacyClaim claim{"metric_dp", epsilon / beta_, 0.0,
                     "two directions at geodesic distance t: privacy loss <= kappa * t, kappa = eps/beta",
                     "exact vMF sampling (Wood 1994) in floating point; the norm ||x|| is released in the "
                     "clear"};
  // The density ratio is exp(kappa (mu1 - mu2)^T z) <= exp(kappa d_geo) (GUIDE.md, sec. 5).
  claim.epsilon_actual = claim.epsilon;
  claim.epsilon_actual_source = "exact by construction (vMF density ratio, kappa = eps/beta)";
  return claim;
}

}  // namespace embpriv
