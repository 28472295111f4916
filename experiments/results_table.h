#pragma once
// A flat results table: named 1-D columns of equal length (double, int64 or string), written to
// HDF5 as one dataset per column under /table, with string attributes on the root (the
// resolved config text, the git commit). Files are written atomically: to a temporary name in
// the same folder, then renamed, so an interrupted run never leaves a half-written file.
#include <cstdint>
#include <map>
#include <string>
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

struct ResultsTable {
  std::vector<Column> columns;
  std::map<std::string, std::string> attributes;  // root attributes

  const Column& column(const std::string& name) const;
  std::size_t rows() const;
};

void write_results_h5(const std::string& path, const ResultsTable& table);
ResultsTable read_results_h5(const std::string& path);

}  // namespace embpriv
