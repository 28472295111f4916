#include "mechanisms/vmf_tangent.h"

#include "core/params.h"
#include "mechanisms/row_math.h"

namespace embpriv {
namespace {

class TangentKernel final : public RowKernel {
 public:
  explicit TangentKernel(double lambda) : lambda_(lambda) {}
  void apply(const float* x, float* y, std::int64_t d, Rng& rng, double* v) const override {
    // Step 1: r = ||x||, mu = x / r.
    const double r = std::sqrt(row::squared_norm(x, d));
    // Step 2: n ~ N(0, I_d), n_perp = n - (n . mu) mu, normalised.
    const row::NormalDraw draw = row::draw_normals(x, r, d, rng, v);
    row::to_unit_tangent(x, r, draw, d, v);
    // Step 4: z = mu + lambda n_perp (step 3, lambda = beta / eps, is done by the caller).
    double z_squared = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      v[j] = x[j] / r + lambda_ * v[j];
      z_squared += v[j] * v[j];
    }
    // Step 5: mu' = z / ||z||, y = r mu'.
    const double scale = r / std::sqrt(z_squared);
    for (std::int64_t j = 0; j < d; ++j) y[j] = static_cast<float>(scale * v[j]);
  }

 private:
  double lambda_;
};

}  // namespace

VmfTangentMechanism::VmfTangentMechanism(double epsilon, double beta, double alpha)
    : Mechanism("vmf_tangent", epsilon, alpha, /*needs_direction=*/true),
      beta_(require_positive("beta", beta)) {}

std::unique_ptr<RowKernel> VmfTangentMechanism::make_kernel(double epsilon) const {
  // Algorithm 1, step 3: lambda = beta / eps.
  return std::make_unique<TangentKernel>(beta_ / epsilon);
}

PrivacyClaim VmfTangentMechanism::claim_at(double epsilon) const {
  return {"none", epsilon, 0.0, "any two directions",
          "the vMF paper claims eps*d_geo metric privacy (Thm 4.1), but Algorithm 1 puts every "
          "output at the fixed angle arctan(beta/eps) from its input, so no finite eps holds "
          "(docs/errata.md); the norm ||x|| is released in the clear"};
}

}  // namespace embpriv
