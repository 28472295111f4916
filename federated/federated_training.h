#pragma once
// PrivateAI's training loop (PrivateAI paper, Algorithm 1) and its baselines:
//   each round n: the server samples a fraction of the clients (80% in the paper); each trains
//   the global model on its own units with Adam (eq. (3)) and releases it under local DP
//   (eq. (4), federated/local_dp.h); the server aggregates the releases (FedAvg or FedAdam,
//   eq. (5)); every I_kd rounds it answers the proxy units, aligns its answers with the
//   teachers' (eq. (6), federated/knowledge_alignment.h) and trains on the kept units with Adam.
// FedAvg and FedAdam are this loop without distillation (distill.every = 0). Deterministic for
// a seed: client choice, local batch order and noise each come from their own derived seed.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "federated/aggregation.h"
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

struct FederatedOptions {
  std::int64_t rounds = 20;
  double client_fraction = 0.8;
  TrainOptions local;
  LocalDpOptions dp;
  Aggregator aggregator = Aggregator::fedadam;
  FedAdamOptions fedadam;
  DistillationOptions distill;
  std::uint64_t seed = 0;
};

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
  double evaluation = 0;             // what `evaluate` returned after the round
};

// Trains `model` in place; evaluate(model) runs after every round (PSR on the test set, say).
std::vector<RoundRecord> train_federated(TextClassifier& model, const std::vector<LabelledUnits>& clients,
                                         const ProxyKnowledge* proxy, const FederatedOptions& options,
                                         const std::function<double(const TextClassifier&)>& evaluate);

}  // namespace embpriv
