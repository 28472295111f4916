#pragma once
// The peak memory of one point of experiment type `perturbation`
// (perturbation_experiment.cpp): the rows go through the mechanism in chunks, so the peak is
// one chunk, whatever data.samples is.
#include <yaml-cpp/yaml.h>

#include <cstdint>

#include "experiments/engine/memory_estimate.h"

namespace embpriv {

// Rows perturbed at once: bounded memory at any data.samples.
inline constexpr std::int64_t kPerturbationChunkRows = 4096;

MemoryEstimate perturbation_memory(const YAML::Node& config);

}  // namespace embpriv
