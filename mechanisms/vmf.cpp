#include "mechanisms/vmf.h"

#include "core/params.h"
#include "mechanisms/row_math.h"
#include "mechanisms/wood_sampler.h"

namespace embpriv {
namespace {

class VmfKernel final : public RowKernel {
 public:
  explicit VmfKernel(double kappa) : kappa_(kappa) {}
  void apply(const float* x, float* y, std::int64_t d, Rng& rng, double* v) const override {
    const WoodSampler sampler(kappa_, d);  // a few flops: cheaper than caching per d
    const double r = std::sqrt(row::squared_norm(x, d));
    const WoodSampler::Draw w = sampler.draw(rng);
    // v: uniform unit vector orthogonal to mu (as Algorithm 1, step 2).
    const row::NormalDraw draw = row::draw_normals(x, r, d, rng, v);
    row::to_unit_tangent(x, r, draw, d, v);
    // y = r (w mu + sqrt(1 - w^2) v); ||y|| = r since mu and v are orthonormal.
    const double along = w.w;  // multiplies mu = x / r, so y_j = along * x_j + across * v_j
    const double across = r * std::sqrt(w.one_minus_w2);
    for (std::int64_t j = 0; j < d; ++j) {
      y[j] = static_cast<float>(along * x[j] + across * v[j]);
    }
  }

 private:
  double kappa_;
};

}  // namespace

VmfMechanism::VmfMechanism(double epsilon, double beta, double alpha)
    : Mechanism("vmf", epsilon, alpha, /*needs_direction=*/true),
      beta_(require_positive("beta", beta)) {}

std::unique_ptr<RowKernel> VmfMechanism::make_kernel(double epsilon) const {
  return std::make_unique<VmfKernel>(epsilon / beta_);  // kappa = eps / beta
}

PrivacyClaim VmfMechanism::claim_at(double epsilon) const {
  return {"metric_dp", epsilon / beta_, 0.0,
          "two directions at geodesic distance t: privacy loss <= kappa * t, kappa = eps/beta",
          "exact vMF sampling (Wood 1994) in floating point; the norm ||x|| is released in the "
          "clear"};
}

}  // namespace embpriv
