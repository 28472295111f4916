#pragma once
// Comparing results tables in tests: the same columns with bit-identical values (NaN == NaN).
#include <cstring>
#include <string>

#include "experiments/results/results_table.h"

namespace embpriv {

// "" when a and b hold the same /table and /curves; else what differs first.
inline std::string table_difference(const ResultsTable& a, const ResultsTable& b) {
  if (a.columns.size() != b.columns.size()) return "different number of columns";
  for (std::size_t i = 0; i < a.columns.size(); ++i) {
    const Column& x = a.columns[i];
    const Column& y = b.columns[i];
    if (x.name != y.name) return "column " + x.name + " vs " + y.name;
    if (x.values.index() != y.values.index()) return "column " + x.name + " has another type";
    if (const auto* u = std::get_if<std::vector<double>>(&x.values)) {
      const auto& v = std::get<std::vector<double>>(y.values);
      if (u->size() != v.size() || std::memcmp(u->data(), v.data(), u->size() * sizeof(double)) != 0) {
        return "column " + x.name + " differs";
      }
    } else if (x.values != y.values) {
      return "column " + x.name + " differs";
    }
  }
  if (a.curves.size() != b.curves.size()) return "different number of curve rows";
  for (std::size_t i = 0; i < a.curves.size(); ++i) {
    if (a.curves[i].row != b.curves[i].row || a.curves[i].arrays != b.curves[i].arrays) {
      return "curves of row " + std::to_string(a.curves[i].row) + " differ";
    }
  }
  return "";
}

}  // namespace embpriv
