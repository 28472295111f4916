#pragma once
// The peak memory of one point of experiment type `inversion` (inversion_experiment.cpp): the
// vocabulary it loads once per run (the GloVe table or the llama2.c model: the shared part), and
// per point the private tokens, one block of KNN scores, the language-model utility's forward
// passes and the learned attack's training windows.
#include <yaml-cpp/yaml.h>

#include "experiments/engine/memory_estimate.h"

namespace embpriv {

MemoryEstimate inversion_memory(const YAML::Node& config);

}  // namespace embpriv
