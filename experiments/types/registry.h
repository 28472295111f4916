#pragma once
// The registry of every experiment type of embpriv (`type:` in a config). Adding a type means
// adding its folder under experiments/types/ and one line in registry.cpp.
#include "experiments/engine/experiment_type.h"

namespace embpriv {

const ExperimentRegistry& default_experiment_registry();

}  // namespace embpriv
