#pragma once
// The whole `embpriv bounds` job: run the checks, print the table, write the HDF5 results and
// the plot. Returns the process exit code: 0 iff every check passes, 1 otherwise.
#include <iosfwd>

#include "experiments/types/bounds/bounds_config.h"
#include "mechanisms/registry.h"

namespace embpriv {

int run_bounds_job(const BoundsConfig& config, const MechanismRegistry& registry,
                   std::ostream& out);

}  // namespace embpriv
