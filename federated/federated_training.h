#pragma once
// PrivateAI's training loop (PrivateAI paper, Algorithm 1) and its baselines:
//   each round n: the server samples a fraction of the clients (80% in the paper); each trains
//   the global model on its own units (eq. (3)) and releases it under DP (eq. (4)); the server
//   aggregates the releases (eq. (5)); every I_kd rounds it answers the proxy units, aligns its
//   answers with the teachers' (eq. (6), federated/knowledge_alignment.h) and trains on the kept
//   units with Adam.
// Who adds the noise, how much, what a client sends and how the server aggregates is the
// method's protocol (federated/protocol.h); FedAvg and FedAdam are this loop without
// distillation (distill.every = 0).
// Deterministic for a seed: client choice, local batch order and noise each come from their own
// derived seed.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "federated/federated_options.h"

namespace embpriv {

// The clients of every round (schedule[n] for round n + 1, sorted): round(fraction K) of the K,
// drawn from the options' seed.
ParticipationSchedule participation_schedule(std::int64_t clients, const FederatedOptions& options);

// The noise of a run of `options` on `clients` clients (its protocol's, for its schedule).
FederatedNoise federated_noise(const FederatedOptions& options, std::int64_t clients);

// Trains `model` in place; evaluate(model) runs after every round (PSR on the test set, say).
std::vector<RoundRecord> train_federated(TextClassifier& model, const std::vector<LabelledUnits>& clients,
                                         const ProxyKnowledge* proxy, const FederatedOptions& options,
                                         const std::function<double(const TextClassifier&)>& evaluate);

}  // namespace embpriv
