#include "experiments/types/federated/composed_privacy.h"

#include <cmath>
#include <limits>

#include "accounting/renyi_dp.h"
#include "core/error.h"
#include "mechanisms/gaussian_calibration.h"

namespace embpriv {

ComposedClientPrivacy composed_client_privacy(double sigma, double clip_norm, double delta, std::int64_t clients,
                                              const std::vector<RoundRecord>& rounds) {
  EMBPRIV_ASSERT(clients >= 1 && !rounds.empty(), "composed privacy: no clients or no rounds");
  ComposedClientPrivacy p;
  const auto T = static_cast<std::int64_t>(rounds.size());
  p.client_rounds_max = static_cast<double>(T);
  double releases = 0;
  for (const RoundRecord& r : rounds) releases += static_cast<double>(r.clients);
  p.client_rounds_mean = releases / static_cast<double>(clients);
  if (sigma <= 0) {
    p.epsilon_rdp = p.epsilon_exact = std::numeric_limits<double>::infinity();
    return p;
  }
  const double sensitivity = 2 * clip_norm;  // Delta2 = 2 theta (local_dp.h)
  p.epsilon_rdp = gaussian_rdp_account(sigma / sensitivity, T, delta).epsilon;
  // T Gaussian releases of noise sigma compose exactly to one of sigma / sqrt(T) (Dong, Roth &
  // Su 2022, Cor. 3.3); its eps by Balle & Wang 2018, Thm 8.
  p.epsilon_exact = analytic_gaussian_epsilon(sigma / std::sqrt(static_cast<double>(T)), delta, sensitivity);
  return p;
}

}  // namespace embpriv
