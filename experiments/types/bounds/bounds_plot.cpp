#include "experiments/types/bounds/bounds_plot.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "experiments/plots/plot.h"

namespace embpriv {
namespace {

bool is_cosine_check(const std::string& check) {
  return check == "cosine_every_sample" || check == "mean_cosine";
}

// The theory curve of one mechanism map over [lo, hi], log-spaced.
PlotSeries theory_curve(const YAML::Node& mechanism, std::int64_t d, double lo, double hi) {
  PlotSeries theory;
  for (int i = 0; i <= 200; ++i) {
    const double eps = lo * std::pow(hi / lo, i / 200.0);
    theory.x.push_back(eps);
    theory.y.push_back(setting_cosine(mechanism, d, eps).value);
  }
  return theory;
}

}  // namespace

bool plot_bounds_cosines(const std::vector<CheckRow>& rows, const std::string& path, std::int64_t d) {
  if (d == 0) {
    for (const CheckRow& r : rows) d = std::max(d, r.d);
  }
  // Measured mean cosines, keyed by (mechanism, beta); a panel per mechanism.
  std::map<std::pair<std::string, double>, PlotSeries> measured;
  std::map<std::pair<std::string, double>, YAML::Node> configs;
  std::map<std::string, PlotSpec> panels;
  for (const CheckRow& r : rows) {
    if (r.d != d || !is_cosine_check(r.check)) continue;
    const std::pair<std::string, double> key{r.mechanism, std::isnan(r.beta) ? -1.0 : r.beta};
    configs.try_emplace(key, YAML::Load(r.mechanism_config));
    PlotSeries& s = measured[key];
    s.x.push_back(r.epsilon);
    s.y.push_back(r.measured);
    std::ostringstream title;
    title << r.mechanism << " (" << r.source << "), d = " << d;
    PlotSpec panel;
    panel.title = title.str();
    panel.x_label = "epsilon";
    panel.y_label = "mean cosine(x, y)";
    panel.log_x = true;
    panels.try_emplace(r.mechanism, std::move(panel));
  }
  int color = 1;
  for (auto& [key, points] : measured) {
    const auto& [mechanism, beta] = key;
    // A cosine the theory gives in expectation only (exact vMF: A_d(eps/beta)) is drawn out to
    // eps = 20 d, so the reader sees where it rises: at the eps of Algorithm 1's grid its
    // outputs are nearly uniform on the sphere (A_d(kappa) ~ kappa/d for kappa << d).
    const YAML::Node& config = configs.at(key);
    const bool every_sample = setting_cosine(config, d, points.x.front()).every_sample;
    const double lo = *std::min_element(points.x.begin(), points.x.end()) / 2;
    const double top = *std::max_element(points.x.begin(), points.x.end()) * 2;
    const double hi = every_sample ? top : std::max(top, 20.0 * static_cast<double>(d));
    std::ostringstream label;
    label << "beta=" << beta;
    PlotSeries theory = theory_curve(config, d, lo, hi);
    theory.label = label.str() + " theory";
    theory.color = color;
    points.label = label.str() + " measured";
    points.points = true;
    points.color = color++;
    panels.at(mechanism).series.push_back(std::move(theory));
    panels.at(mechanism).series.push_back(std::move(points));
  }
  std::vector<PlotSpec> pages;
  for (auto& [mechanism, panel] : panels) pages.push_back(std::move(panel));
  if (pages.empty()) return false;
  plot_figure(pages, path, PlotFormat::png,
              "bounds: measured mean cosine (points) against the theory (lines), d = " + std::to_string(d));
  return true;
}

}  // namespace embpriv
