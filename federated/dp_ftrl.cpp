#include "federated/dp_ftrl.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "federated/aggregation.h"

namespace embpriv {

double dp_ftrl_sensitivity(const std::vector<std::vector<std::int64_t>>& schedule, std::int64_t clients,
                           double clip_norm) {
  EMBPRIV_CHECK(!schedule.empty() && clients >= 1, "DP-FTRL: no rounds or no clients");
  EMBPRIV_CHECK(clip_norm > 0 && std::isfinite(clip_norm), "DP-FTRL: the clipping norm must be > 0, got " << clip_norm);
  const auto T = static_cast<std::int64_t>(schedule.size());
  // rounds_of[u][t] = 1 when client u takes part in round t + 1.
  std::vector<std::vector<int>> rounds_of(static_cast<std::size_t>(clients), std::vector<int>(schedule.size(), 0));
  for (std::size_t t = 0; t < schedule.size(); ++t) {
    for (const std::int64_t u : schedule[t]) {
      EMBPRIV_CHECK(u >= 0 && u < clients, "DP-FTRL: round " << t + 1 << " names client " << u << " of " << clients);
      rounds_of[static_cast<std::size_t>(u)][t] = 1;
    }
  }
  double worst = 0;
  for (const auto& rounds : rounds_of) {
    double squares = 0;
    // Every released node: level h, index j, covering rounds (j - 1) 2^h + 1 .. j 2^h <= T.
    for (std::int64_t span = 1; span <= T; span *= 2) {
      for (std::int64_t end = span; end <= T; end += span) {
        double n = 0;
        for (std::int64_t t = end - span; t < end; ++t) n += rounds[static_cast<std::size_t>(t)];
        squares += n * n;
      }
    }
    worst = std::max(worst, squares);
  }
  return 2 * clip_norm * std::sqrt(worst);
}

DpFtrlServer::DpFtrlServer(const at::Tensor& initial, double sigma, double eta, std::int64_t clients_per_round,
                           std::uint64_t seed)
    : initial_(initial.to(at::kDouble)),
      eta_(eta),
      clients_per_round_(clients_per_round),
      tree_(initial.size(0), sigma, seed) {
  EMBPRIV_CHECK(initial.dim() == 1, "DP-FTRL: the model must be a vector, got " << initial.sizes());
  EMBPRIV_CHECK(eta > 0 && std::isfinite(eta), "DP-FTRL: the server learning rate must be > 0, got " << eta);
  EMBPRIV_CHECK(clients_per_round >= 1, "DP-FTRL: clients per round must be >= 1, got " << clients_per_round);
}

at::Tensor DpFtrlServer::step(const std::vector<at::Tensor>& clipped_updates) {
  const at::Tensor noisy_prefix = tree_.add(sum_of_releases(initial_, clipped_updates, "DP-FTRL"));  // S_t
  return initial_ + (eta_ / static_cast<double>(clients_per_round_)) * noisy_prefix;
}

}  // namespace embpriv
