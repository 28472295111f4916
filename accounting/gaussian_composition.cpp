#include "accounting/gaussian_composition.h"

#include <cmath>

#include "core/error.h"
#include "core/gaussian_privacy_profile.h"

namespace embpriv {

double gaussian_composition_epsilon(double noise_multiplier, std::int64_t rounds, double delta) {
  EMBPRIV_CHECK(std::isfinite(noise_multiplier) && noise_multiplier > 0,
                "accountant: sigma must be finite and > 0, got " << noise_multiplier);
  EMBPRIV_CHECK(rounds >= 1, "accountant: rounds must be >= 1, got " << rounds);
  EMBPRIV_CHECK(delta > 0 && delta < 1, "accountant: delta must be in (0, 1), got " << delta);
  // DRS 2022, Cor. 3.3: T rounds of multiplier sigma = one round of sigma / sqrt(T).
  const double composed = noise_multiplier / std::sqrt(static_cast<double>(rounds));
  EMBPRIV_CHECK(analytic_gaussian_delta(1e12, composed, 1.0) <= delta,
                "accountant: sigma " << noise_multiplier << " over " << rounds << " rounds gives eps above 1e12 at delta "
                                     << delta << " (the noise is too small to account for)");
  return analytic_gaussian_epsilon(composed, delta, 1.0);
}

}  // namespace embpriv
