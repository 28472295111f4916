#pragma once
// Wood (1994), "Simulation of the von Mises Fisher distribution": draws w = mu^T z for
// z ~ vMF(mu, kappa) on S^{d-1}, whose density is proportional to
// exp(kappa w) (1 - w^2)^((d-3)/2) on [-1, 1]. O(1) expected work per draw.
#include <cstdint>

#include "core/rng.h"

namespace embpriv {

class WoodSampler {
 public:
  WoodSampler(double kappa, std::int64_t d);
  // One draw of w, together with 1 - w^2 computed without cancellation near w = 1.
  struct Draw {
    double w;
    double one_minus_w2;
  };
  Draw draw(Rng& rng) const;

 private:
  double kappa_;
  double m1_;  // d - 1
  double b_;   // Wood's b, in the stable form (d-1) / (2 kappa + sqrt(4 kappa^2 + (d-1)^2))
  double x0_;  // (1 - b) / (1 + b)
  double one_minus_x0_;
  double log_one_minus_x0_squared_;
};

}  // namespace embpriv
