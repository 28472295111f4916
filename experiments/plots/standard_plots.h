#pragma once
// The figures `embpriv plot` and `embpriv run` draw from a results table: metric y against a
// parameter x, one line per group, error bars over seeds, and the theory curve where there is
// one. Each request becomes STEM.NAME.png and STEM.NAME.svg (written atomically).
#include <string>
#include <vector>

#include "experiments/plots/plot.h"
#include "experiments/results/results_table.h"

namespace embpriv {

struct PlotRequest {
  std::string name;                   // file name part: STEM.NAME.png / .svg
  std::string x, y;                   // column names of the table (x numeric, y double)
  std::vector<std::string> group_by;  // one line per distinct combination of these columns
  std::string theory;                 // optional double column, drawn dashed per group
  bool log_x = false, log_y = false;
  std::string title;                  // empty: "y vs x"
  // Optional: a column along which each line runs (e.g. epsilon on a utility-vs-attack plot):
  // rows sharing (group, along) are averaged in x and y, and points are joined in its order.
  std::string along = {};
  // Optional: requests with the same page are drawn as panels of one figure STEM.PAGE.png.
  std::string page = {};
  std::string theory_label = "theory";  // legend word of the dashed line
  // x and y name per-row arrays under /curves (e.g. an ROC curve) instead of columns: one line
  // per ok row, labelled by its group_by values; rows of one label with equal x arrays (the
  // seeds of a point, e.g. PSR after each round) are averaged into one line.
  bool curves = false;
  // Optional: only rows at the smallest or the largest value of each of these numeric columns
  // (PSR after each round at the extreme eps only, where every eps would crowd the figure).
  std::vector<std::string> extremes_of = {};
  // Optional: the x axis's label (empty: the x column's name), e.g. to say that an eps is nominal.
  std::string x_label = {};
};

// The columns a request names that the table lacks, as one message ("" when all are there).
std::string missing_plot_columns(const ResultsTable& table, const PlotRequest& request);

// The lines of one request, as render_plots draws them (measured per group, with error bars;
// then the group's theory, dashed, in the same color).
std::vector<PlotSeries> aggregate_series(const ResultsTable& table, const PlotRequest& request);

// The title over a figure: the run's name and what its panels sweep, e.g. "inversion_glove:
// swept mechanism.epsilon (x axis); one line per mechanism".
std::string figure_title(const std::string& run_name, const std::vector<const PlotRequest*>& requests);

// Renders every request; rows whose "status" column is not "ok" are left out. Rows sharing the
// group and x (the seeds of a point) are averaged; the error bar is the standard error over
// them when there are two or more, else the row's "<y>_stderr" column when the table has one.
// A probability gets a 0..1 axis and its chance line (axis_conventions.h), each figure a title
// (figure_title).
// A request with nothing finite measured to draw (only dashed lines) is skipped with a note.
// Returns the files written.
// Throws embpriv::Error naming a missing column or a gnuplot failure.
std::vector<std::string> render_plots(const ResultsTable& table,
                                      const std::vector<PlotRequest>& requests,
                                      const std::string& stem);

}  // namespace embpriv
