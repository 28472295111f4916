#pragma once
// The rows of a run in memory (one per grid point x seed done so far) and their conversion to
// and from the results table, so that a resumed run continues from what a file holds.
#include <cstdint>
#include <map>
#include <string>

#include "experiments/results/results_table.h"
#include "experiments/engine/run_plan.h"

namespace embpriv {

struct RowRecord {
  bool ok = false;
  std::string error;   // the failure's message when !ok
  PointResult result;  // numbers, strings and curves of an ok row
  double seconds = 0;  // wall time
};

using RowRecords = std::map<std::int64_t, RowRecord>;  // keyed by row index in the full grid

// Throws an internal Error unless an ok row's result sets exactly the columns its type
// declares (number_columns, string_columns).
void check_result_columns(const ExperimentType& type, const PointResult& result);

// The table of the rows done, sorted by row: row, replicate, seed, the swept keys, status,
// error, then the type's columns in their declared order (NaN / "" on failed rows); curves and
// timing included.
ResultsTable table_from_records(const RunPlan& plan, const RowRecords& records);

// The ok rows of a results file of the same plan (failed rows are left out: they run again).
RowRecords records_from_table(const RunPlan& plan, const ResultsTable& table);

}  // namespace embpriv
