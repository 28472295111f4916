#pragma once
// PrivateAI's training loop (PrivateAI paper, Algorithm 1) and its baselines:
//   each round n: the server samples a fraction of the clients (80% in the paper); each trains
//   the global model on its own units with Adam (eq. (3)) and releases it under local DP
//   (eq. (4), federated/local_dp.h); the server aggregates the releases (FedAvg or FedAdam,
//   eq. (5)); every I_kd rounds it answers the proxy units, aligns its answers with the
//   teachers' (eq. (6), federated/knowledge_alignment.h) and trains on the kept units with Adam.
// FedAvg and FedAdam are this loop without distillation (distill.every = 0). The baselines of
// the paper's Fig. 3 change who adds the noise, how much, and the update rules (`protocol`):
//   local_dp     eq. (4) per release and FedAvg/FedAdam (PrivateAI, FedAvg, FedAdam, central);
//   dp_ftrl      clipped updates to a trusted server that adds tree noise (federated/dp_ftrl.h);
//   robust_dpfl  RDP-calibrated local noise for the whole run, noise-aware robust mean
//                (federated/robust_dpfl.h);
//   fafl         STORM local steps with a shared adaptive matrix, eq. (4) per release
//                (federated/fafl.h).
// Deterministic for a seed: client choice, local batch order and noise each come from their own
// derived seed.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "federated/aggregation.h"
#include "federated/fafl.h"
#include "federated/local_dp.h"
#include "models/text_classifier.h"

namespace embpriv {

struct LabelledUnits {
  at::Tensor ids;     // [N, L] int64 (models/text_classifier.h)
  at::Tensor labels;  // [N] 0/1
};

struct DistillationOptions {
  std::int64_t every = 0;  // I_kd: distil after every I_kd-th aggregation; 0: never (I_kd = inf)
  double mu = 0.9;         // alignment threshold
  bool align = true;       // false: the "without alignment" ablation (teachers' mean, no filter)
  bool use_teachers = true;  // false: the "without teacher knowledge" ablation: the server's own
                             // answers stand for the teachers' (f = f_hat, filtered by mu)
  TrainOptions train;      // the server's Adam on the kept proxy units
};

enum class FederatedProtocol { local_dp, dp_ftrl, robust_dpfl, fafl };
const char* to_string(FederatedProtocol protocol);

struct FederatedOptions {
  FederatedProtocol protocol = FederatedProtocol::local_dp;
  std::int64_t rounds = 20;
  double client_fraction = 0.8;
  TrainOptions local;
  LocalDpOptions dp;
  Aggregator aggregator = Aggregator::fedadam;
  FedAdamOptions fedadam;
  DistillationOptions distill;
  double ftrl_eta = 1.0;  // DP-FTRL: the server's learning rate 1 / lambda
  double robust_z = 3.0;  // Robust-DPFL: the band of the noise-aware filter, in standard deviations
  FaflOptions fafl;
  std::uint64_t seed = 0;
};

// The clients of every round (schedule[n] for round n + 1, sorted): round(fraction K) of the K,
// drawn from the options' seed.
std::vector<std::vector<std::int64_t>> participation_schedule(std::int64_t clients, const FederatedOptions& options);

// The standard deviation of the noise the protocol adds per coordinate (0 without DP): of each
// release (local_dp, fafl: eq. (4) at dp.epsilon per release; robust_dpfl: dp.epsilon for the
// whole run by RDP) or of each tree node (dp_ftrl: dp.epsilon for the whole run).
double federated_noise_sigma(const FederatedOptions& options, std::int64_t clients);

// The proxy set as the server holds it: the units and the teachers' mean answer (eq. (6)).
struct ProxyKnowledge {
  at::Tensor ids;           // [E, L]
  at::Tensor teacher_mean;  // [E] in [0, 1] (unused when distill.use_teachers is false)
};

struct RoundRecord {
  std::int64_t round = 0;            // 1-based
  std::int64_t clients = 0;          // sampled this round
  double local_loss = 0;             // mean over the sampled clients of their last epoch's loss
  std::int64_t distilled_units = 0;  // kept proxy units (0 when the round did not distil)
  std::int64_t kept_releases = 0;    // releases the server aggregated (Robust-DPFL may drop some)
  double evaluation = 0;             // what `evaluate` returned after the round
};

// Trains `model` in place; evaluate(model) runs after every round (PSR on the test set, say).
std::vector<RoundRecord> train_federated(TextClassifier& model, const std::vector<LabelledUnits>& clients,
                                         const ProxyKnowledge* proxy, const FederatedOptions& options,
                                         const std::function<double(const TextClassifier&)>& evaluate);

}  // namespace embpriv
