#pragma once
// The peak memory of one point of experiment type `federated` (federated_experiment.cpp): the
// GloVe table and the e-mails loaded once per run (shared), and per point the clients' copies of
// the Transformer classifier with their Adam state, one training batch's activations, and the
// shadow federations' scores of the candidates.
#include <yaml-cpp/yaml.h>

#include "experiments/engine/memory_estimate.h"

namespace embpriv {

MemoryEstimate federated_memory(const YAML::Node& config);

}  // namespace embpriv
