#pragma once
// The peak memory of one point of experiment type `bounds` (bounds_experiment.cpp). The inputs
// of each (data.samples, data.dim, seed) are made once and kept in the run's cache until the run
// ends, so a sweep over dims holds the inputs of every dim at once: they are the estimate's
// shared part, which the engine adds up over the run (experiments/engine/run_memory.h).
#include <yaml-cpp/yaml.h>

#include "experiments/engine/memory_estimate.h"

namespace embpriv {

MemoryEstimate bounds_memory(const YAML::Node& config);

}  // namespace embpriv
