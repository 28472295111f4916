#pragma once
// Line and point plots rendered by gnuplot (Debian's gnuplot-nox) to PNG or SVG, written
// atomically.
#include <optional>
#include <string>
#include <utility>
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

// A line for the reader's eye, drawn grey and dotted: chance (AUC 0.5) or the diagonal of a ROC.
struct ReferenceLine {
  std::string label;      // its legend entry ("chance (AUC 0.5)")
  double y = 0;           // a horizontal line at y ...
  bool diagonal = false;  // ... or, when set, the line y = x
};

struct PlotSpec {
  std::string title, x_label, y_label;
  bool log_x = false;
  std::vector<PlotSeries> series;
  bool log_y = false;
  std::optional<std::pair<double, double>> y_range;  // fixed y axis (a probability's 0..1); else autoscaled
  std::vector<ReferenceLine> references;
};

enum class PlotFormat { png, svg };

// Renders the panels side by side to path (650 px wide per panel), under `title` when it is not
// empty. Throws embpriv::Error when gnuplot is missing or fails, with gnuplot's first error line.
void plot_figure(const std::vector<PlotSpec>& panels, const std::string& path, PlotFormat format,
                 const std::string& title = "");
// The gnuplot script plot_figure runs: panel i's series read the data blocks in order from
// data_path (one block per series, panels in order), the image goes to image_path.
std::string gnuplot_script(const std::vector<PlotSpec>& panels, const std::string& data_path,
                           const std::string& image_path, PlotFormat format, const std::string& title);

}  // namespace embpriv
