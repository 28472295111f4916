#pragma once
// Line and point plots rendered by gnuplot (Debian's gnuplot-nox) to PNG or SVG, written
// atomically.
#include <string>
#include <vector>

namespace embpriv {

struct PlotSeries {
  std::string label;
  std::vector<double> x, y;
  std::vector<double> y_error;  // error bar half-widths, one per point (empty: none)
  bool points = false;          // markers instead of a line
  bool dashed = false;          // a dashed line (theory curves)
  int color = 1;                // gnuplot line type: series with the same color belong together
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_x = false;
  std::vector<PlotSeries> series;
  bool log_y = false;
};

enum class PlotFormat { png, svg };

// Renders the panels side by side to path (650 px wide per panel). Throws embpriv::Error
// when gnuplot is missing or fails, with gnuplot's first error line.
void plot_figure(const std::vector<PlotSpec>& panels, const std::string& path, PlotFormat format);
inline void plot_png(const std::vector<PlotSpec>& panels, const std::string& path) {
  plot_figure(panels, path, PlotFormat::png);
}

}  // namespace embpriv
