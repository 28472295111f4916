#include "mechanisms/wood_sampler.h"

#include <cmath>

#include "core/error.h"

namespace embpriv {

namespace {

// 4 kappa^2 overflows a double above sqrt(DBL_MAX) / 2 = 6.7e153; beyond this kappa, Wood's b
// is computed in a scaled form (see wood_b). Below it, the original form is kept bit for bit.
constexpr double kScaledFormKappa = 1e150;

// Wood (1994), step 0: b = (-2 kappa + sqrt(4 kappa^2 + (d-1)^2)) / (d-1), rewritten as
// (d-1) / (2 kappa + sqrt(4 kappa^2 + (d-1)^2)) to avoid cancellation for large kappa, and
// for kappa > kScaledFormKappa as r / (1 + sqrt(1 + r^2)) with r = (d-1) / (2 kappa) (the same
// value divided through by 2 kappa), which cannot overflow: unscaled, 4 kappa^2 = inf would give
// b = 0, x0 = 1 and a NaN acceptance test that rejects forever.
double wood_b(double kappa, double m1) {
  if (kappa > kScaledFormKappa) {
    const double r = 0.5 * (m1 / kappa);
    return r / (1.0 + std::sqrt(1.0 + r * r));
  }
  return m1 / (2.0 * kappa + std::sqrt(4.0 * kappa * kappa + m1 * m1));
}

}  // namespace

WoodSampler::WoodSampler(double kappa, std::int64_t d)
    : kappa_(kappa), m1_(static_cast<double>(d - 1)) {
  EMBPRIV_ASSERT(std::isfinite(kappa) && kappa > 0 && d >= 2,
                 "Wood's sampler needs a finite kappa > 0 and d >= 2, got kappa = "
                     << kappa << ", d = " << d);
  b_ = wood_b(kappa_, m1_);
  x0_ = (1.0 - b_) / (1.0 + b_);
  one_minus_x0_ = 2.0 * b_ / (1.0 + b_);
  log_one_minus_x0_squared_ = std::log(one_minus_x0_) + std::log1p(x0_);
}

WoodSampler::Draw WoodSampler::draw(Rng& rng) const {
  const double half = 0.5 * m1_;
  for (;;) {
    // Step 1: Z ~ Beta((d-1)/2, (d-1)/2), W = (1 - (1+b) Z) / (1 - (1-b) Z).
    const double z = rng.beta(half, half);
    const double denominator = 1.0 - (1.0 - b_) * z;
    const double w = (1.0 - (1.0 + b_) * z) / denominator;
    const double one_minus_w = 2.0 * b_ * z / denominator;  // exact algebra, no cancellation
    // Step 2: accept if kappa W + (d-1) ln(1 - x0 W) - c >= ln U with
    // c = kappa x0 + (d-1) ln(1 - x0^2); written as differences that stay accurate when
    // W and x0 are both close to 1: W - x0 = (1 - x0) - (1 - W) and
    // 1 - x0 W = (1 - W) + W (1 - x0).
    const double w_minus_x0 = one_minus_x0_ - one_minus_w;
    const double one_minus_x0w = one_minus_w + w * one_minus_x0_;
    const double lhs =
        kappa_ * w_minus_x0 + m1_ * (std::log(one_minus_x0w) - log_one_minus_x0_squared_);
    if (lhs >= std::log(rng.uniform_open())) {
      return {w, one_minus_w * (2.0 - one_minus_w)};
    }
  }
}

}  // namespace embpriv
