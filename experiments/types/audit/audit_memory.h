#pragma once
// The peak memory of one point of experiment type `audit` (audit_experiment.cpp): the selection
// half of attacks/audit.h holds the outputs of both inputs at once, audit.trials x data.dim each.
#include <yaml-cpp/yaml.h>

#include "experiments/engine/memory_estimate.h"

namespace embpriv {

MemoryEstimate audit_memory(const YAML::Node& config);

}  // namespace embpriv
