#pragma once
// The figure of an audit run over the number of trials (configs/paper/audit_trials.yaml): the
// eps lower bound against audit.trials (log x), one panel per audited setting (mechanism,
// eps, break), one line per bound, the claimed eps dashed:
//   eps_lower_bound (the selected test, Clopper-Pearson), eps_lower_bound_all_thresholds (every
//   threshold, Bonferroni: attacks/audit_tradeoff.h) and gdp_eps_low (the Gaussian-DP estimate's
//   lower end; drawn where finite at two trial counts or more: a claim with delta = 0 has none).
// Seeds of one point are averaged.
#include <string>
#include <vector>

#include "experiments/results/results_table.h"

namespace embpriv {

// Writes path_stem + ".bounds_versus_trials.png" and ".svg"; returns the files written (none
// when the table's ok rows hold fewer than two trial counts).
std::vector<std::string> plot_audit_bounds_versus_trials(const ResultsTable& table, const std::string& path_stem);

}  // namespace embpriv
