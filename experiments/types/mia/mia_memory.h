#pragma once
// The peak memory of one point of experiment type `mia` (mia_experiment.cpp): the GloVe table
// loaded once per run (shared), and per point the candidates' token rows and sentence features
// and every shadow model's scores (attack.shadows x data.examples).
#include <yaml-cpp/yaml.h>

#include "experiments/engine/memory_estimate.h"

namespace embpriv {

MemoryEstimate mia_memory(const YAML::Node& config);

}  // namespace embpriv
