#include "experiments/types/bounds/bounds_plot.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "experiments/plots/plot.h"
#include "metrics/theory.h"

namespace embpriv {

void plot_bounds_cosines(const std::vector<CheckRow>& rows, const std::string& path,
                         std::int64_t d) {
  if (d == 0) {
    for (const CheckRow& r : rows) d = std::max(d, r.d);
  }
  // Measured mean cosines, keyed by (mechanism, beta).
  std::map<std::pair<std::string, double>, PlotSeries> measured;
  for (const CheckRow& r : rows) {
    const bool tangent = r.mechanism == "vmf_tangent" && r.check == "cosine_every_sample";
    const bool vmf = r.mechanism == "vmf" && r.check == "mean_cosine";
    if (r.d != d || !(tangent || vmf)) continue;
    PlotSeries& s = measured[{r.mechanism, r.beta}];
    s.x.push_back(r.epsilon);
    s.y.push_back(r.measured);
  }
  // Left: Algorithm 1 on the config's eps grid. Right: exact vMF, whose theory curve is drawn
  // out to eps = 20 d so the reader sees where A_d(eps/beta) rises: at the same eps its outputs
  // are nearly uniform on the sphere (A_d(kappa) ~ kappa/d for kappa << d).
  std::ostringstream tangent_title, vmf_title;
  tangent_title << "vmf_tangent (Algorithm 1), d = " << d;
  vmf_title << "vmf (exact, kappa = eps/beta), d = " << d;
  PlotSpec tangent{tangent_title.str(), "epsilon", "mean cosine(x, y)", true, {}};
  PlotSpec vmf{vmf_title.str(), "epsilon", "mean cosine(x, y)", true, {}};
  int color = 1;
  for (auto& [key, points] : measured) {
    const auto& [mechanism, beta] = key;
    const bool is_vmf = mechanism == "vmf";
    std::ostringstream label;
    label << "beta=" << beta;
    PlotSeries theory;
    theory.label = label.str() + (is_vmf ? " theory A_d(eps/beta)" : " theory 1/sqrt(1+(beta/eps)^2)");
    theory.color = color;
    const double lo = *std::min_element(points.x.begin(), points.x.end()) / 2;
    const double top = *std::max_element(points.x.begin(), points.x.end()) * 2;
    const double hi = is_vmf ? std::max(top, 20.0 * static_cast<double>(d)) : top;
    for (int i = 0; i <= 200; ++i) {
      const double eps = lo * std::pow(hi / lo, i / 200.0);
      theory.x.push_back(eps);
      theory.y.push_back(is_vmf ? vmf_mean_resultant(d, eps / beta)
                                : expected_cosine_tangent(beta, eps));
    }
    points.label = label.str() + " measured";
    points.points = true;
    points.color = color++;
    PlotSpec& panel = is_vmf ? vmf : tangent;
    panel.series.push_back(std::move(theory));
    panel.series.push_back(std::move(points));
  }
  plot_png({tangent, vmf}, path);
}

}  // namespace embpriv
