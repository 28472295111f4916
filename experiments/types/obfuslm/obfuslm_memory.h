#pragma once
// The peak memory of one point of experiment type `obfuslm` (obfuslm_experiment.cpp): the
// vocabulary loaded once per run (shared), and per point the obfuscated copies of the table,
// EmbedCluster's similarity slab (mechanisms/obfuslm/similarity_candidates.h), one block of KNN
// scores, the anonymity game's draws and the language-model utility.
#include <yaml-cpp/yaml.h>

#include "experiments/engine/memory_estimate.h"

namespace embpriv {

MemoryEstimate obfuslm_memory(const YAML::Node& config);

}  // namespace embpriv
