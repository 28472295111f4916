#pragma once
// Line and point plots rendered to PNG by gnuplot (Debian's gnuplot-nox), written atomically.
#include <string>
#include <vector>

namespace embpriv {

struct PlotSeries {
  std::string label;
  std::vector<double> x, y;
  bool points = false;  // markers instead of a line
  int color = 1;        // gnuplot line type: series with the same color belong together
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_x = false;
  std::vector<PlotSeries> series;
};

// Renders the panels side by side to path (PNG, 650 px wide per panel). Throws embpriv::Error
// when gnuplot is missing or fails.
void plot_png(const std::vector<PlotSpec>& panels, const std::string& path);

}  // namespace embpriv
