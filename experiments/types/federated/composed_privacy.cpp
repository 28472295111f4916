#include "experiments/types/federated/composed_privacy.h"

#include <cmath>
#include <limits>

#include "accounting/gaussian_composition.h"
#include "accounting/pld_accountant.h"
#include "accounting/renyi_dp.h"
#include "core/gaussian_privacy_profile.h"
#include "core/error.h"

namespace embpriv {
namespace {

// The exact eps of `rounds` releases, +inf where it exceeds what the accountant resolves (1e12):
// a row whose noise is that small claims nothing, and says so rather than failing.
double exact_or_infinity(double multiplier, std::int64_t rounds, double delta) {
  if (!(analytic_gaussian_delta(1e12, multiplier / std::sqrt(static_cast<double>(rounds)), 1.0) <= delta)) {
    return std::numeric_limits<double>::infinity();
  }
  return gaussian_composition_epsilon(multiplier, rounds, delta);
}

}  // namespace

ComposedClientPrivacy composed_client_privacy(const FederatedNoise& noise, double delta, std::int64_t clients,
                                              const std::vector<RoundRecord>& rounds) {
  EMBPRIV_ASSERT(clients >= 1 && !rounds.empty(), "composed privacy: no clients or no rounds");
  EMBPRIV_ASSERT(noise.releases >= 1 && noise.sensitivity > 0, "composed privacy: no release or no sensitivity");
  ComposedClientPrivacy p;
  p.client_rounds_max = static_cast<double>(rounds.size());
  double releases = 0;
  for (const RoundRecord& r : rounds) releases += static_cast<double>(r.clients);
  p.client_rounds_mean = releases / static_cast<double>(clients);
  if (noise.sigma <= 0) {
    p.epsilon_rdp = p.epsilon_exact = p.epsilon_pld = p.epsilon_actual = std::numeric_limits<double>::infinity();
    return p;
  }
  const double multiplier = noise.sigma / noise.sensitivity;
  p.epsilon_rdp = gaussian_rdp_account(multiplier, noise.releases, delta).epsilon;
  // k Gaussian releases of noise sigma compose exactly to one of sigma / sqrt(k) (Dong, Roth &
  // Su 2022, Cor. 3.3); its eps by Balle & Wang 2018, Thm 8 (accounting/gaussian_composition.h).
  p.epsilon_exact = exact_or_infinity(multiplier, noise.releases, delta);
  p.epsilon_pld = std::isfinite(p.epsilon_exact) ? gaussian_pld_account(multiplier, noise.releases, delta).epsilon
                                                 : p.epsilon_exact;
  p.epsilon_actual = noise.epsilon_per_round ? exact_or_infinity(multiplier, 1, delta) : p.epsilon_exact;
  return p;
}

ComposedClientPrivacy composed_client_privacy(double sigma, double clip_norm, double delta, std::int64_t clients,
                                              const std::vector<RoundRecord>& rounds) {
  FederatedNoise noise;
  noise.sigma = sigma;
  noise.sensitivity = 2 * clip_norm;  // Delta2 = 2 theta (local_dp.h)
  noise.releases = static_cast<std::int64_t>(rounds.size());
  return composed_client_privacy(noise, delta, clients, rounds);
}

}  // namespace embpriv
