#include "federated/dp_ftrl.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "federated/aggregation.h"
#include "federated/protocol.h"

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

namespace {

// DP-FTRL's protocol: the clients send their clipped updates without noise (dp.clip is update by
// design: the settings refuse parameters); the trusted server's tree noise is one Gaussian
// mechanism for the whole run, of the schedule's sensitivity (releases = 1).
class DpFtrlProtocol final : public Protocol {
 public:
  DpFtrlProtocol(const FederatedOptions& o, const ParticipationSchedule& schedule, std::int64_t clients,
                 const at::Tensor& initial)
      : Protocol(o, calibrated_noise(o.dp, dp_ftrl_sensitivity(schedule, clients, o.dp.clip_norm), 1)),
        server_(initial, noise_.sigma, o.ftrl_eta, static_cast<std::int64_t>(schedule.front().size()),
                derive_seed(o.seed, 0, "federated.dp_ftrl")) {
    noise_.epsilon_per_round = false;  // the tree's eps is the run's, whatever dp.budget says
  }

  at::Tensor release(const at::Tensor& local, const at::Tensor& global, std::uint64_t) const override {
    const at::Tensor update = local - global;
    return options_.dp.enabled ? clip_to_norm(update, options_.dp.clip_norm) : update;
  }

  at::Tensor aggregate(const at::Tensor& global, const std::vector<at::Tensor>& released,
                       RoundRecord& record) override {
    record.kept_releases = static_cast<std::int64_t>(released.size());
    return server_.step(released).to(global.scalar_type());
  }

 private:
  DpFtrlServer server_;
};

}  // namespace

std::unique_ptr<Protocol> make_dp_ftrl_protocol(const FederatedOptions& options, const ParticipationSchedule& schedule,
                                                std::int64_t clients, const at::Tensor& initial) {
  return std::make_unique<DpFtrlProtocol>(options, schedule, clients, initial);
}

}  // namespace embpriv
