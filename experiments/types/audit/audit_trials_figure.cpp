#include "experiments/types/audit/audit_trials_figure.h"

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "experiments/plots/plot.h"

namespace embpriv {
namespace {

// The bounds drawn, with their legend words.
const std::vector<std::pair<std::string, std::string>>& bound_columns() {
  static const std::vector<std::pair<std::string, std::string>> columns = {
      {"eps_lower_bound", "Clopper-Pearson, selected test"},
      {"eps_lower_bound_all_thresholds", "all thresholds, Bonferroni"},
      {"gdp_eps_low", "Gaussian-DP (lower end)"},
  };
  return columns;
}

// Mean of the finite values per x, in increasing x (NaN: a bound that does not apply to the row).
struct MeanByX {
  std::map<double, std::pair<double, int>> sums;
  void add(double x, double y) {
    if (!std::isfinite(y)) return;
    auto& [sum, count] = sums[x];
    sum += y;
    ++count;
  }
  PlotSeries series(const std::string& label, int color, bool dashed) const {
    PlotSeries s;
    s.label = label;
    s.color = color;
    s.dashed = dashed;
    for (const auto& [x, sum_count] : sums) {
      s.x.push_back(x);
      s.y.push_back(sum_count.first / sum_count.second);
    }
    return s;
  }
};

struct Panel {
  std::vector<MeanByX> bounds = std::vector<MeanByX>(bound_columns().size());
  MeanByX claim;
};

}  // namespace

std::vector<std::string> plot_audit_bounds_versus_trials(const ResultsTable& table, const std::string& path_stem) {
  const auto& status = table.values<std::string>("status");
  const auto& mechanism = table.values<std::string>("mechanism_name");
  const auto& broken = table.values<std::string>("broken");
  const auto& epsilon = table.values<double>("epsilon");
  const auto& trials = table.values<double>("trials");
  const auto& claimed = table.values<double>("claimed_epsilon");
  std::set<double> trial_counts;
  std::map<std::tuple<std::string, double, std::string>, Panel> panels;
  for (std::size_t row = 0; row < table.rows(); ++row) {
    if (status[row] != "ok") continue;
    trial_counts.insert(trials[row]);
    Panel& panel = panels[{mechanism[row], epsilon[row], broken[row]}];
    for (std::size_t b = 0; b < bound_columns().size(); ++b) {
      panel.bounds[b].add(trials[row], table.values<double>(bound_columns()[b].first)[row]);
    }
    panel.claim.add(trials[row], claimed[row]);
  }
  if (trial_counts.size() < 2) return {};
  std::vector<PlotSpec> specs;
  for (const auto& [key, panel] : panels) {
    const auto& [name, eps, broke] = key;
    std::ostringstream title;
    title << name << ", eps " << eps << (broke == "none" ? "" : ", broken: " + broke);
    PlotSpec spec;
    spec.title = title.str();
    spec.x_label = "trials per input and half";
    spec.y_label = "eps lower bound";
    spec.log_x = true;
    for (std::size_t b = 0; b < bound_columns().size(); ++b) {
      PlotSeries s = panel.bounds[b].series(bound_columns()[b].second, static_cast<int>(b + 1), false);
      // A bound finite at fewer than two trial counts draws no line: gdp_eps_low is NaN for a
      // claim with delta = 0 (no Gaussian-DP bound applies), and MeanByX skips NaN.
      if (s.x.size() >= 2) spec.series.push_back(std::move(s));
    }
    spec.series.push_back(panel.claim.series("claimed eps", 8, true));
    specs.push_back(std::move(spec));
  }
  const std::string png = path_stem + ".bounds_versus_trials.png", svg = path_stem + ".bounds_versus_trials.svg";
  plot_figure(specs, png, PlotFormat::png);
  plot_figure(specs, svg, PlotFormat::svg);
  return {png, svg};
}

}  // namespace embpriv
