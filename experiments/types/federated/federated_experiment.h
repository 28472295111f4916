#pragma once
// Experiment type `federated`: PrivateAI (PrivateAI paper; issue 7) and its baselines FedAvg and
// FedAdam on the real SpamAssassin e-mails. K clients hold labelled text units (a random half of
// the candidate units, split by Dirichlet(alpha)); each round 80% of them train the global
// Transformer classifier locally with Adam and release it under local DP (clipping the
// parameters as published, or the update); the server aggregates (FedAvg / FedAdam, eq. (5))
// and, for PrivateAI, every I_kd rounds distils the teachers' answers on the proxy set, aligned
// with its own and filtered by mu (eq. (6)). Measured: PSR (accuracy of flagging private units
// on the balanced test set) per round and final, and membership inference against the final
// global model (loss threshold; LiRA with `attack.shadows` shadow federations).
#include <memory>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

std::unique_ptr<ExperimentType> make_federated_experiment();

}  // namespace embpriv
