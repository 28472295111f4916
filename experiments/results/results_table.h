#pragma once
// A results file (docs/results.md): named 1-D columns of equal length (double, int64 or
// string) under /table, string attributes on the root (the resolved config, the git commit, ...),
// per-row arrays under /curves/<row>/<name>, and per-row wall times under /timing/seconds, with
// the time of each phase of a row under /timing/<phase> (kept out of /table, which is
// deterministic). Files are written atomically: to a temporary name in
// the same folder, then renamed, so an interrupted run never leaves a half-written file.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace embpriv {

using ColumnValues =
    std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::string>>;

struct Column {
  std::string name;
  ColumnValues values;
  std::size_t size() const;
};

// The arrays of one table row (e.g. an ROC curve, a histogram).
struct RowCurves {
  std::int64_t row = 0;  // the value of the row's "row" column
  std::vector<std::pair<std::string, std::vector<double>>> arrays;
};

struct ResultsTable {
  std::vector<Column> columns;
  std::map<std::string, std::string> attributes;  // root attributes
  std::vector<RowCurves> curves;                  // /curves (optional)
  std::vector<double> seconds;                    // /timing/seconds (empty or one per row)
  // /timing/<phase>: the seconds of each phase of each row (0 where a row had no such phase)
  std::map<std::string, std::vector<double>> phase_seconds;

  const Column& column(const std::string& name) const;
  bool has_column(const std::string& name) const;
  // The values of column `name` as T (double, std::int64_t or std::string); a missing column or
  // one of another type (a file edited by hand: a float `row`) is an Error naming it.
  template <class T>
  const std::vector<T>& values(const std::string& name) const;
  std::size_t rows() const;
};

void write_results_h5(const std::string& path, const ResultsTable& table);
// Reads a results file; a missing, truncated or foreign file gives one clear Error.
ResultsTable read_results_h5(const std::string& path);

}  // namespace embpriv
