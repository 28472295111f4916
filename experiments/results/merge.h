#pragma once
// `embpriv merge OUT IN...`: joins the shard files of one run into one results file, the same
// as a single run would have written (rows sorted, curves and timing kept).
#include <string>
#include <vector>

#include "experiments/results/results_table.h"

namespace embpriv {

// Rejects files of different configs (config_hash), different columns, and rows held twice.
ResultsTable merge_results(const std::vector<std::string>& inputs);
// Merges and writes OUT atomically; returns the merged table.
ResultsTable merge_results_files(const std::string& out, const std::vector<std::string>& inputs);

}  // namespace embpriv
