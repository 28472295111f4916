#pragma once
// Experiment type `accountant`: what PrivateAI's local DP adds up to per client, without
// training anything. A row is one setting of the federated type's privacy keys (dp.epsilon per
// client per round, dp.delta, rounds, clients, client_fraction); its columns are the totals over
// the rounds a client can take part in, from the accounting/ layer through the same code as the
// federated type's composed columns (experiments/types/federated/composed_privacy.h), for both
// noise calibrations: the paper's classic sigma and the analytic Gaussian (Balle & Wang 2018).
// docs/accounting.md; configs/paper/privateai_accountant.yaml.
#include <memory>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

std::unique_ptr<ExperimentType> make_accountant_experiment();

}  // namespace embpriv
