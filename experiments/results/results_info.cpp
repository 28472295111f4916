#include "experiments/results/results_info.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <set>
#include <sstream>

#include "experiments/results/results_table.h"

namespace embpriv {
namespace {

constexpr std::size_t kShownValues = 6;

// "float64  min .. max (k NaN)", "int64  {1, 2, 3}", "text  {ok, failed}".
std::string summarize(const Column& column) {
  std::ostringstream out;
  out << std::setprecision(6);
  if (const auto* v = std::get_if<std::vector<double>>(&column.values)) {
    double lo = INFINITY, hi = -INFINITY;
    std::size_t nan = 0;
    std::set<double> distinct;
    for (double x : *v) {
      if (std::isnan(x)) {
        ++nan;
        continue;
      }
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      if (distinct.size() <= kShownValues) distinct.insert(x);
    }
    out << "float64  ";
    if (distinct.size() <= kShownValues && !distinct.empty()) {
      out << "{";
      for (auto it = distinct.begin(); it != distinct.end(); ++it) out << (it == distinct.begin() ? "" : ", ") << *it;
      out << "}";
    } else if (!distinct.empty()) {
      out << lo << " .. " << hi;
    }
    if (nan) out << (distinct.empty() ? "" : " ") << "(" << nan << " NaN)";
  } else if (const auto* v = std::get_if<std::vector<std::int64_t>>(&column.values)) {
    std::set<std::int64_t> distinct(v->begin(), v->end());
    out << "int64    ";
    if (distinct.size() <= kShownValues) {
      out << "{";
      for (auto it = distinct.begin(); it != distinct.end(); ++it) out << (it == distinct.begin() ? "" : ", ") << *it;
      out << "}";
    } else {
      out << *distinct.begin() << " .. " << *distinct.rbegin() << " (" << distinct.size() << " values)";
    }
  } else {
    const auto& texts = std::get<std::vector<std::string>>(column.values);
    std::set<std::string> distinct(texts.begin(), texts.end());
    out << "text     ";
    if (distinct.size() <= kShownValues) {
      out << "{";
      for (auto it = distinct.begin(); it != distinct.end(); ++it) {
        std::string shown = it->size() > 60 ? it->substr(0, 57) + "..." : *it;
        out << (it == distinct.begin() ? "" : ", ") << '"' << shown << '"';
      }
      out << "}";
    } else {
      out << distinct.size() << " distinct values";
    }
  }
  return out.str();
}

// The wall time over all rows, and per phase (/timing/<phase>) with its share; what no phase
// covers (set-up between phases, the engine's own work) shows as "other".
void print_timing(const ResultsTable& table, std::ostream& out) {
  const auto sum = [](const std::vector<double>& values) {
    double total = 0;
    for (double v : values) total += v;
    return total;
  };
  const double total = sum(table.seconds);
  out << "  /timing: " << std::fixed << std::setprecision(1) << total << " s over all rows\n";
  if (table.phase_seconds.empty()) return;
  double phases = 0;
  const auto line = [&](const std::string& name, double seconds) {
    out << "    " << std::left << std::setw(16) << name << std::right << std::setw(10) << seconds << " s  "
        << std::setw(5) << (total > 0 ? 100 * seconds / total : 0.0) << " %\n";
  };
  for (const auto& [phase, values] : table.phase_seconds) {
    line(phase, sum(values));
    phases += sum(values);
  }
  line("other", std::max(0.0, total - phases));
  out << std::defaultfloat;
}

}  // namespace

void print_results_info(const std::string& path, std::ostream& out) {
  const ResultsTable table = read_results_h5(path);
  const auto attribute = [&](const char* name) {
    const auto found = table.attributes.find(name);
    return found == table.attributes.end() ? std::string("-") : found->second;
  };
  out << path << "\n";
  for (const char* name : {"type", "name", "embpriv_version", "git_commit", "device", "seed",
                           "seeds", "shard", "start_time", "end_time", "config_hash"}) {
    if (table.attributes.count(name)) out << "  " << std::left << std::setw(16) << name << attribute(name) << "\n";
  }
  std::size_t failed = 0;
  std::string first_error;
  if (table.has_column("status")) {
    const auto& status = table.values<std::string>("status");
    const auto& errors = table.values<std::string>("error");
    for (std::size_t i = 0; i < status.size(); ++i) {
      if (status[i] == "ok") continue;
      if (!failed++) first_error = errors[i];
    }
  }
  out << "  rows            " << table.rows() << " (" << table.rows() - failed << " ok, " << failed
      << " failed)";
  if (table.attributes.count("grid_rows")) {
    out << " of " << attribute("grid_rows") << " in the grid; complete: " << attribute("complete");
  }
  out << "\n";
  if (failed) out << "  first failure   " << first_error << "\n";
  out << "  /table columns:\n";
  for (const Column& c : table.columns) {
    out << "    " << std::left << std::setw(36) << c.name << " " << summarize(c) << "\n";
  }
  if (!table.curves.empty()) {
    out << "  /curves: " << table.curves.size() << " rows, arrays:";
    for (const auto& [name, values] : table.curves.front().arrays) out << " " << name << "[" << values.size() << "]";
    out << "\n";
  }
  if (!table.seconds.empty()) print_timing(table, out);
}

}  // namespace embpriv
