#pragma once
// The plot of `embpriv bounds`: mean cosine between input and output against eps, per
// mechanism and beta, measured points on the theory curves (vmf_tangent: Prop. 3.1;
// vmf: A_d(eps/beta)).
#include <string>
#include <vector>

#include "experiments/types/bounds/bounds.h"

namespace embpriv {

// Plots the rows of dimension d (the largest in rows when d = 0) to path.
void plot_bounds_cosines(const std::vector<CheckRow>& rows, const std::string& path,
                         std::int64_t d = 0);

}  // namespace embpriv
