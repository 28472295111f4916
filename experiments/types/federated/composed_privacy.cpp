#include "experiments/types/federated/composed_privacy.h"

#include <cmath>
#include <limits>

#include "accounting/renyi_dp.h"
#include "core/error.h"
#include "mechanisms/gaussian_calibration.h"

namespace embpriv {

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
    p.epsilon_rdp = p.epsilon_exact = p.epsilon_actual = std::numeric_limits<double>::infinity();
    return p;
  }
  const double k = static_cast<double>(noise.releases);
  p.epsilon_rdp = gaussian_rdp_account(noise.sigma / noise.sensitivity, noise.releases, delta).epsilon;
  // k Gaussian releases of noise sigma compose exactly to one of sigma / sqrt(k) (Dong, Roth &
  // Su 2022, Cor. 3.3); its eps by Balle & Wang 2018, Thm 8.
  p.epsilon_exact = analytic_gaussian_epsilon(noise.sigma / std::sqrt(k), delta, noise.sensitivity);
  p.epsilon_actual = noise.epsilon_per_round ? analytic_gaussian_epsilon(noise.sigma, delta, noise.sensitivity)
                                             : p.epsilon_exact;
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
