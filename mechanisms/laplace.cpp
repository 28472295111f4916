#include "mechanisms/laplace.h"

#include <sstream>

#include "core/params.h"
#include "mechanisms/row_math.h"
#include "mechanisms/theory.h"

namespace embpriv {
namespace {

class LaplaceKernel final : public RowKernel {
 public:
  LaplaceKernel(double b, double clip_norm) : b_(b), clip_norm_(clip_norm) {}
  void apply(const float* x, float* y, std::int64_t d, Rng& rng, double*) const override {
    // Clip to L1 norm C: x * min(1, C / ||x||_1).
    const double norm = row::l1_norm(x, d);
    const double scale = norm > clip_norm_ ? clip_norm_ / norm : 1.0;
    for (std::int64_t j = 0; j < d; ++j) {
      y[j] = static_cast<float>(scale * x[j] + b_ * rng.laplace());
    }
  }

 private:
  double b_;
  double clip_norm_;
};

}  // namespace

LaplaceMechanism::LaplaceMechanism(double epsilon, double clip_norm, double alpha)
    : Mechanism("laplace", epsilon, alpha, /*needs_direction=*/false),
      clip_norm_(require_positive("clip_norm", clip_norm)) {}

std::unique_ptr<RowKernel> LaplaceMechanism::make_kernel(double epsilon) const {
  return std::make_unique<LaplaceKernel>(scale(epsilon), clip_norm_);
}

// The Laplace analogue of Thm 5.4 after clipping to L1 norm C: E||y||^2 = ||clip(x)||^2 + 2 d b^2.
Prediction LaplaceMechanism::expected_squared_norm(double squared_norm, double l1_norm,
                                                   std::int64_t d, double epsilon) const {
  const double scale_to_clip = l1_norm > clip_norm_ ? clip_norm_ / l1_norm : 1.0;
  return {laplace_expected_squared_norm(squared_norm * scale_to_clip * scale_to_clip, d, scale(epsilon)),
          "Thm 5.4 analogue: + 2 d b^2"};
}

NeighbouringPair LaplaceMechanism::neighbouring_pair(std::int64_t d, double) const {
  return clipped_pair(d, clip_norm_, claim());
}

PrivacyClaim LaplaceMechanism::claim_at(double epsilon) const {
  std::ostringstream neighbours, note;
  neighbours << "any two inputs after clipping to L1 norm C = " << clip_norm_
             << " (Delta1 = 2C)";
  note << "b = " << scale(epsilon);
  PrivacyClaim claim{"pure_dp", epsilon, 0.0, neighbours.str(), note.str()};
  claim.epsilon_actual = epsilon;  // b = Delta1 / eps is exact for every eps (Dwork & Roth, Thm 3.6)
  claim.epsilon_actual_source = "exact by construction (Laplace, b = Delta1 / eps)";
  return claim;
}

}  // namespace embpriv
