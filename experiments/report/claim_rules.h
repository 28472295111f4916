#pragma once
// Deciding one claim's rule on one results table (experiments/report/claims.h lists the kinds).
#include <string>

#include "experiments/report/claims.h"
#include "experiments/results/results_table.h"

namespace embpriv {

struct RuleOutcome {
  bool holds = false;
  std::string ours;    // our number(s), with their spread over the rows and seeds read
  std::string detail;  // what the rule compared ("max |diff| 3e-8 <= 1e-3")
};

// Evaluates `rule` on the rows of `table` whose status is ok. A column the rule names that the
// table lacks, a selection that keeps no row, or a non-numeric column where a number is needed
// is an embpriv::Error starting with `where` (the claims file and claim) and naming
// `results_path`.
RuleOutcome evaluate_rule(const Rule& rule, const ResultsTable& table, const std::string& where,
                          const std::string& results_path);

// "0.707" style: 3 significant digits, "nan" for NaN.
std::string format_number(double value);

}  // namespace embpriv
