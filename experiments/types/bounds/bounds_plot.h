#pragma once
// The figure of experiment type `bounds`: mean cosine between input and output against eps, one
// panel per mechanism with a cosine check, one line per beta, measured points on the theory's
// curves (vmf_tangent: Prop. 3.1; vmf: A_d(eps/beta)).
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/types/bounds/bounds_checks.h"

namespace embpriv {

// Plots the checks of dimension d (the largest among them when d = 0) to path; false (and
// nothing written) when no check is a cosine check.
bool plot_bounds_cosines(const std::vector<CheckRow>& rows, const std::string& path, std::int64_t d = 0);

}  // namespace embpriv
