#pragma once
// Experiment type `bounds`: the vMF paper's theorems checked by simulation. A grid point is one
// setting (a mechanism at one d and epsilon); its row holds every check the mechanism's theory
// has a closed form for (bounds_checks.h), one group of columns per kind of check
// (bounds_table.h). Once the run is complete the interval checks are judged together, the
// check table is printed, and the run exits 1 if any check fails. configs/bounds.yaml is the
// full check; `embpriv bounds` runs it (docs/bounds.md).
#include <memory>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

std::unique_ptr<ExperimentType> make_bounds_experiment();

}  // namespace embpriv
