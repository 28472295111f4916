#include "federated/federated_training.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "core/error.h"
#include "core/progress.h"
#include "core/rng.h"
#include "federated/dp_ftrl.h"
#include "federated/knowledge_alignment.h"
#include "federated/robust_dpfl.h"
#include "mechanisms/gaussian_calibration.h"

namespace embpriv {
namespace {

// The clients of round n: a uniform sample of round(fraction K) of them (at least one), sorted.
std::vector<std::int64_t> sample_clients(std::int64_t K, double fraction, std::uint64_t seed) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(K));
  std::iota(all.begin(), all.end(), 0);
  Rng rng(seed, 0);
  shuffle(all, rng);
  const auto m = std::clamp<std::int64_t>(std::llround(fraction * static_cast<double>(K)), 1, K);
  all.resize(static_cast<std::size_t>(m));
  std::sort(all.begin(), all.end());
  return all;
}

void check_options(const std::vector<LabelledUnits>& clients, const ProxyKnowledge* proxy, const FederatedOptions& o) {
  EMBPRIV_CHECK(!clients.empty(), "federated training: no clients");
  EMBPRIV_CHECK(o.rounds >= 1, "federated training: rounds must be >= 1, got " << o.rounds);
  EMBPRIV_CHECK(o.client_fraction > 0 && o.client_fraction <= 1,
                "federated training: the client fraction must be in (0, 1], got " << o.client_fraction);
  EMBPRIV_CHECK(o.distill.every >= 0, "federated training: distill.every (I_kd) must be >= 0");
  EMBPRIV_CHECK(o.distill.every == 0 || (proxy && proxy->ids.defined() && proxy->ids.size(0) > 0 &&
                                          (!o.distill.use_teachers || proxy->teacher_mean.defined())),
                "federated training: distillation needs a proxy set with teachers' answers");
  if (o.dp.enabled) {
    EMBPRIV_CHECK(o.dp.epsilon > 0 && std::isfinite(o.dp.epsilon), "local DP: eps must be > 0, got " << o.dp.epsilon);
    EMBPRIV_CHECK(o.dp.delta > 0 && o.dp.delta < 1, "local DP: delta must be in (0, 1), got " << o.dp.delta);
  }
  for (std::size_t u = 0; u < clients.size(); ++u) {
    EMBPRIV_CHECK(clients[u].ids.defined() && clients[u].labels.defined() &&
                      clients[u].ids.size(0) == clients[u].labels.size(0),
                  "federated training: client " << u << " has ids and labels of different lengths");
  }
}

// federated_noise_sigma for a schedule already drawn.
double noise_sigma(const FederatedOptions& o, std::int64_t clients, const std::vector<std::vector<std::int64_t>>& schedule) {
  if (!o.dp.enabled) return 0.0;
  const double sensitivity = 2.0 * o.dp.clip_norm;  // one release, replace-one (local_dp.h)
  switch (o.protocol) {
    case FederatedProtocol::dp_ftrl:
      return gaussian_sigma(o.dp.calibration, o.dp.epsilon, o.dp.delta,
                            dp_ftrl_sensitivity(schedule, clients, o.dp.clip_norm));
    case FederatedProtocol::robust_dpfl:  // every round a client may take part in: T releases
      return rdp_calibrated_sigma(o.dp.epsilon, o.dp.delta, o.rounds, sensitivity);
    case FederatedProtocol::fafl:
    case FederatedProtocol::local_dp:
      break;
  }
  return local_dp_sigma(o.dp);
}

// The server's side of one protocol: what a client sends and how the releases become the model.
class ProtocolServer {
 public:
  ProtocolServer(const FederatedOptions& o, const std::vector<std::vector<std::int64_t>>& schedule,
                 std::int64_t clients, const at::Tensor& initial)
      : o_(o), sigma_(noise_sigma(o, clients, schedule)), aggregator_(o.aggregator, o.fedadam) {
    if (o.protocol == FederatedProtocol::dp_ftrl) {
      const auto m = static_cast<std::int64_t>(schedule.front().size());  // the same in every round
      ftrl_.emplace(initial, sigma_, o.ftrl_eta, m, derive_seed(o.seed, 0, "federated.dp_ftrl"));
    }
    if (o.protocol == FederatedProtocol::fafl) fafl_.emplace(initial.size(0), o.fafl);
  }

  // Client's local training from the global model; returns its last loss.
  double train_locally(TextClassifier& local, const LabelledUnits& data, std::uint64_t seed) const {
    if (o_.protocol == FederatedProtocol::fafl) {
      return fafl_local_steps(local, data.ids, data.labels, fafl_->inverse_preconditioner(), o_.fafl, seed);
    }
    return local.train(data.ids, data.labels, o_.local, seed);
  }

  // What the client sends: eq. (4)'s release, or (DP-FTRL) its clipped update, noiseless.
  at::Tensor release(const at::Tensor& local, const at::Tensor& global, std::uint64_t seed) const {
    if (o_.protocol != FederatedProtocol::dp_ftrl) return release_local_model(local, global, o_.dp, sigma_, seed);
    const at::Tensor update = local - global;
    return o_.dp.enabled ? clip_to_norm(update, o_.dp.clip_norm) : update;
  }

  at::Tensor aggregate(const at::Tensor& global, const std::vector<at::Tensor>& released, RoundRecord& record) {
    record.kept_releases = static_cast<std::int64_t>(released.size());
    switch (o_.protocol) {
      case FederatedProtocol::dp_ftrl:
        return ftrl_->step(released).to(global.scalar_type());
      case FederatedProtocol::robust_dpfl: {
        // Without DP nothing is clipped and there is no noise floor to test against: every
        // release counts, as in FedAvg.
        if (!o_.dp.enabled) return mean_of_releases(global, released, "Robust-DPFL").to(global.scalar_type());
        const RobustAggregate robust = noise_aware_mean(released, sigma_, o_.dp.clip_norm, o_.robust_z);
        record.kept_releases = robust.kept;
        return robust.model;
      }
      case FederatedProtocol::fafl:
        return fafl_->step(global, released);
      case FederatedProtocol::local_dp:
        break;
    }
    return aggregator_.step(global, released);
  }

 private:
  const FederatedOptions& o_;
  double sigma_;
  ServerAggregator aggregator_;
  std::optional<DpFtrlServer> ftrl_;
  std::optional<FaflServer> fafl_;
};

}  // namespace

const char* to_string(FederatedProtocol protocol) {
  switch (protocol) {
    case FederatedProtocol::dp_ftrl: return "dp_ftrl";
    case FederatedProtocol::robust_dpfl: return "robust_dpfl";
    case FederatedProtocol::fafl: return "fafl";
    case FederatedProtocol::local_dp: break;
  }
  return "local_dp";
}

std::vector<std::vector<std::int64_t>> participation_schedule(std::int64_t clients, const FederatedOptions& o) {
  EMBPRIV_CHECK(clients >= 1 && o.rounds >= 1, "federated training: no clients or no rounds");
  std::vector<std::vector<std::int64_t>> schedule;
  for (std::int64_t n = 0; n < o.rounds; ++n) {
    schedule.push_back(
        sample_clients(clients, o.client_fraction, derive_seed(o.seed, static_cast<std::uint64_t>(n), "federated.clients")));
  }
  return schedule;
}

double federated_noise_sigma(const FederatedOptions& o, std::int64_t clients) {
  return noise_sigma(o, clients, participation_schedule(clients, o));
}

std::vector<RoundRecord> train_federated(TextClassifier& model, const std::vector<LabelledUnits>& clients,
                                         const ProxyKnowledge* proxy, const FederatedOptions& o,
                                         const std::function<double(const TextClassifier&)>& evaluate) {
  check_options(clients, proxy, o);
  const auto K = static_cast<std::int64_t>(clients.size());
  const std::vector<std::vector<std::int64_t>> schedule = participation_schedule(K, o);
  ProtocolServer server(o, schedule, K, model.shared_parameters());
  std::vector<RoundRecord> records;
  ProgressBar progress(o.rounds, "rounds");
  for (std::int64_t n = 0; n < o.rounds; ++n) {
    const auto round = static_cast<std::uint64_t>(n);
    RoundRecord record;
    record.round = n + 1;
    const at::Tensor global = model.shared_parameters();
    std::vector<at::Tensor> released;
    for (const std::int64_t u : schedule[static_cast<std::size_t>(n)]) {
      const auto client_round = round * static_cast<std::uint64_t>(K) + static_cast<std::uint64_t>(u);
      TextClassifier local = model.clone();
      record.local_loss += server.train_locally(local, clients[static_cast<std::size_t>(u)],
                                                derive_seed(o.seed, client_round, "federated.local"));
      released.push_back(server.release(local.shared_parameters(), global,
                                        derive_seed(o.seed, client_round, "federated.noise")));
    }
    record.clients = static_cast<std::int64_t>(released.size());
    record.local_loss /= static_cast<double>(released.size());
    model.set_shared_parameters(server.aggregate(global, released, record));
    if (o.distill.every > 0 && (n + 1) % o.distill.every == 0) {
      const at::Tensor server_answers = model.probabilities(proxy->ids);
      const at::Tensor& teachers = o.distill.use_teachers ? proxy->teacher_mean : server_answers;
      const DistillationTargets kept = o.distill.align ? aligned_knowledge(teachers, server_answers, o.distill.mu)
                                                       : unaligned_knowledge(teachers);
      record.distilled_units = kept.units.size(0);
      if (record.distilled_units > 0) {
        model.train(proxy->ids.index_select(0, kept.units), kept.targets, o.distill.train,
                    derive_seed(o.seed, round, "federated.distill"));
      }
    }
    record.evaluation = evaluate ? evaluate(model) : 0.0;
    records.push_back(record);
    progress.advance();
  }
  return records;
}

}  // namespace embpriv
