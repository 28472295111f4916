#pragma once
// The checks of experiment type `bounds` as result columns: one row per setting, one group of
// columns per kind of check (NaN where the setting's theory has no such check), and back. The
// interval checks are judged together once the run is complete (Bonferroni over all of them).
#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/engine/experiment_type.h"
#include "experiments/results/results_table.h"
#include "experiments/types/bounds/bounds_checks.h"

namespace embpriv {

// Every kind of check, in the order a setting reports them.
const std::vector<std::string>& bounds_check_kinds();

// The number and string columns of a bounds row.
std::vector<std::string> bounds_number_columns();
std::vector<std::string> bounds_string_columns();

// One setting's checks as the values of its row. `checks_failed` counts the exact checks that
// failed; interval checks are judged by judge_intervals.
void put_checks(const BoundsSetting& setting, const std::vector<CheckRow>& checks, PointResult& result);

// The checks held by the ok rows of a results table, in row order.
std::vector<CheckRow> checks_from_table(const ResultsTable& table);

// The family-wise verdict of the interval checks of a complete table: with m interval checks,
// each uses the normal interval at level 1 - (1 - confidence) / m (Bonferroni), so a correct
// implementation fails any of them with probability at most 1 - confidence. Writes their lo,
// hi and pass columns and updates checks_failed.
void judge_intervals(ResultsTable& table, double confidence);

// Human-readable table: check, source, expected, measured, interval, PASS/FAIL, and a summary.
void print_bounds_table(std::ostream& out, const std::vector<CheckRow>& rows);

}  // namespace embpriv
