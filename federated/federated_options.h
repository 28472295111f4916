#pragma once
// What a federated run is told (FederatedOptions) and what it reports (RoundRecord,
// FederatedNoise): the vocabulary shared by the training loop (federated_training.h) and the
// protocols (protocol.h).
#include <ATen/core/Tensor.h>

#include <cstdint>
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
  // I_kd: distil after every I_kd-th aggregation; 0: never (the paper's I_kd = inf). 1 is
  // Algorithm 1 as written, distillation after every aggregation (PrivateAI paper, the paragraph
  // after Algorithm 1's description: I_kd in [1, inf), 1 distils at every aggregation, inf
  // never). The baselines (FedAvg, FedAdam, ...) run with 0.
  std::int64_t every = 1;
  double mu = 0.9;         // alignment threshold
  bool align = true;       // false: the "without alignment" ablation (teachers' mean, no filter)
  bool use_teachers = true;  // false: the "without teacher knowledge" ablation: the server's own
                             // answers stand for the teachers' (f = f_hat, filtered by mu)
  TrainOptions train;      // the server's Adam on the kept proxy units
};

// PrivateAI and the baselines of its Fig. 3. Each method runs one protocol (protocol.h):
//   privateai, fedavg, fedadam: eq. (4) per release, FedAdam (fedavg: FedAvg) aggregation;
//   central: one client holding every member's units, every round, no DP, FedAvg (the plain
//     average of one update is that update): the ceiling of the others;
//   dp_ftrl: clipped updates to a trusted server that adds tree noise (dp_ftrl.h);
//   robust_dpfl: local noise for the whole run, noise-aware robust mean (robust_dpfl.h);
//   fafl: STORM local steps with a shared adaptive matrix, eq. (4) per release (fafl.h).
enum class FederatedMethod { privateai, fedavg, fedadam, central, dp_ftrl, robust_dpfl, fafl };
FederatedMethod parse_federated_method(std::string_view name);  // the names of to_string
const char* to_string(FederatedMethod method);

struct FederatedOptions {
  FederatedMethod method = FederatedMethod::privateai;
  std::int64_t rounds = 10;
  double client_fraction = 0.8;
  TrainOptions local;
  LocalDpOptions dp;
  FedAdamOptions fedadam;
  DistillationOptions distill;
  double ftrl_eta = 1.0;  // DP-FTRL: the server's learning rate 1 / lambda
  double robust_z = 3.0;  // Robust-DPFL: the band of the noise-aware filter, in standard deviations
  FaflOptions fafl;
  std::uint64_t seed = 0;
};

// schedule[n]: the clients that take part in round n + 1 (sorted ids in [0, K)).
using ParticipationSchedule = std::vector<std::vector<std::int64_t>>;

// The Gaussian noise a protocol adds, as a client's privacy accounting needs it
// (experiments/types/federated/composed_privacy.h, docs/accounting.md): over the run a client's
// data goes through at most `releases` Gaussian mechanisms, each adding N(0, sigma^2 I) to a
// function of L2 sensitivity `sensitivity` (protocol.h says what each protocol's are).
struct FederatedNoise {
  double sigma = 0;           // per coordinate; 0 without DP
  double sensitivity = 0;     // Delta2 of one release
  std::int64_t releases = 0;  // compositions over the run, worst case (a client in every round)
  bool epsilon_per_round = true;  // dp.epsilon budgets one release (else the whole run)
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
  std::int64_t kept_releases = 0;    // releases the server aggregated (Robust-DPFL may drop some)
  double evaluation = 0;             // what `evaluate` returned after the round
};

}  // namespace embpriv
