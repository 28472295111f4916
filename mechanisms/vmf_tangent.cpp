#include "mechanisms/vmf_tangent.h"

#include "core/params.h"
#include "mechanisms/row_math.h"
#include "mechanisms/theory.h"

namespace embpriv {
namespace {

class TangentKernel final : public RowKernel {
 public:
  explicit TangentKernel(double lambda) : lambda_(lambda) {}
  void apply(const float* x, float* y, std::int64_t d, Rng& rng, double* v) const override {
    // Steps 1-2: r = ||x||, mu = x / r; n ~ N(0, I_d) projected on the tangent plane at mu and
    // normalised (kept implicit by row::Tangent).
    const row::Tangent t = row::draw_tangent(x, d, rng, v);
    // Steps 4-5: z = mu + lambda n_perp; mu' = z / ||z|| with ||z|| = sqrt(1 + lambda^2), as
    // mu and n_perp are orthonormal; y = r mu'. (Step 3, lambda = beta / eps, is make_kernel.)
    const double inv_norm_z = 1.0 / std::sqrt(1.0 + lambda_ * lambda_);
    row::write_combination(x, v, t, t.r * inv_norm_z, t.r * lambda_ * inv_norm_z, d, y);
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

Prediction VmfTangentMechanism::norm_kept() const { return {1.0, "vMF paper, Thm 5.1"}; }

Prediction VmfTangentMechanism::cosine(std::int64_t, double epsilon) const {
  return {expected_cosine_tangent(beta_, epsilon), "vMF paper, Prop 3.1 / Thm 5.2", true};
}

Prediction VmfTangentMechanism::dot_product_factor(std::int64_t, double epsilon) const {
  return {dot_product_factor_tangent(beta_, epsilon), "vMF paper, Thm 5.3"};
}

// The paper's Thm 4.1 promises eps * d_geo: that is the claim an audit puts to the test, though
// claim() says "none" (docs/errata.md).
NeighbouringPair VmfTangentMechanism::neighbouring_pair(std::int64_t d, double distance) const {
  return direction_pair(d, distance, claim().epsilon);
}

PrivacyClaim VmfTangentMechanism::claim_at(double epsilon) const {
  PrivacyClaim claim{"none", epsilon, 0.0, "any two directions",
                     "the vMF paper claims eps*d_geo metric privacy (Thm 4.1), but Algorithm 1 puts every "
                     "output at the fixed angle arctan(beta/eps) from its input, so no finite eps holds "
                     "(docs/errata.md); the norm ||x|| is released in the clear"};
  claim.epsilon_actual = std::numeric_limits<double>::infinity();
  claim.epsilon_actual_source = "no finite eps holds: the output lies on a ring around the input (docs/errata.md)";
  return claim;
}

}  // namespace embpriv
