#include "experiments/plots/standard_plots.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/log.h"
#include "experiments/plots/axis_conventions.h"

namespace embpriv {
namespace {

// A column's value at row i as a number (string columns are not numbers).
double number_at(const Column& column, std::size_t i) {
  if (const auto* v = std::get_if<std::vector<double>>(&column.values)) return (*v)[i];
  if (const auto* v = std::get_if<std::vector<std::int64_t>>(&column.values)) {
    return static_cast<double>((*v)[i]);
  }
  throw Error("column '" + column.name + "' holds text, not numbers: it cannot be an axis");
}

std::string text_at(const Column& column, std::size_t i) {
  if (const auto* v = std::get_if<std::vector<std::string>>(&column.values)) return (*v)[i];
  std::ostringstream out;
  out << number_at(column, i);
  return out.str();
}

// "mechanism={name: vmf, beta: 1}" reads better as "vmf, beta: 1"; other keys as "key=value".
std::string group_label(const std::string& column, const std::string& value) {
  // "obfuscation.k=5" reads as "k=5": the last part of a dotted path names the value.
  const std::string key = column.substr(column.rfind('.') == std::string::npos ? 0 : column.rfind('.') + 1);
  if (value.size() < 2 || value.front() != '{' || value.back() != '}') return key + "=" + value;
  std::string inner = value.substr(1, value.size() - 2);
  if (inner.rfind("name: ", 0) == 0) inner = inner.substr(6);
  return inner;
}

// Labels in natural order: "k=5" before "k=20" (runs of digits compare as numbers).
struct NaturalLess {
  bool operator()(const std::string& a, const std::string& b) const {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
        std::size_t i_end = i, j_end = j;
        while (i_end < a.size() && (std::isdigit(static_cast<unsigned char>(a[i_end])) || a[i_end] == '.')) ++i_end;
        while (j_end < b.size() && (std::isdigit(static_cast<unsigned char>(b[j_end])) || b[j_end] == '.')) ++j_end;
        const double x = std::strtod(a.substr(i, i_end - i).c_str(), nullptr);
        const double y = std::strtod(b.substr(j, j_end - j).c_str(), nullptr);
        if (x != y) return x < y;
        i = i_end;
        j = j_end;
      } else {
        if (a[i] != b[j]) return a[i] < b[j];
        ++i;
        ++j;
      }
    }
    return a.size() - i < b.size() - j;
  }
};

struct Cell {
  std::vector<double> x, y, stderr_y, theory;
};

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// Standard error of the mean over the seeds of one point.
double standard_error(const std::vector<double>& v) {
  const double m = mean(v);
  double squares = 0;
  for (double x : v) squares += (x - m) * (x - m);
  return std::sqrt(squares / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
}

}  // namespace

std::string missing_plot_columns(const ResultsTable& table, const PlotRequest& request) {
  std::vector<std::string> wanted;
  if (!request.curves) wanted = {request.x, request.y};
  wanted.insert(wanted.end(), request.group_by.begin(), request.group_by.end());
  if (!request.theory.empty()) wanted.push_back(request.theory);
  if (!request.along.empty()) wanted.push_back(request.along);
  wanted.insert(wanted.end(), request.extremes_of.begin(), request.extremes_of.end());
  for (const std::string& name : wanted) {
    if (table.has_column(name)) continue;
    std::string columns;
    for (const Column& c : table.columns) columns += (columns.empty() ? "" : ", ") + c.name;
    return "plot '" + (request.name.empty() ? request.y : request.name) +
           "': the table has no column '" + name + "' (columns: " + columns + ")";
  }
  return "";
}

namespace {

// The rows a request draws: status ok (when the table has a status column) and, for each column
// of request.extremes_of, at its smallest or largest value among those rows.
std::vector<std::size_t> drawn_rows(const ResultsTable& table, const PlotRequest& request) {
  const Column* status = table.has_column("status") ? &table.column("status") : nullptr;
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < table.rows(); ++i) {
    if (!status || text_at(*status, i) == "ok") rows.push_back(i);
  }
  for (const std::string& name : request.extremes_of) {
    const Column& c = table.column(name);
    double low = INFINITY, high = -INFINITY;
    for (const std::size_t i : rows) {
      low = std::min(low, number_at(c, i));
      high = std::max(high, number_at(c, i));
    }
    std::vector<std::size_t> kept;
    for (const std::size_t i : rows) {
      if (number_at(c, i) == low || number_at(c, i) == high) kept.push_back(i);
    }
    rows = std::move(kept);
  }
  return rows;
}

// One line per ok row from its arrays request.x and request.y under /curves; rows of one label
// (the seeds of a point) whose x arrays are equal are averaged pointwise into one line.
std::vector<PlotSeries> curve_series(const ResultsTable& table, const PlotRequest& request) {
  const Column& rows = table.column("row");
  struct Line {
    std::string label;
    std::vector<double> x, y_sum;
    int count = 0;
  };
  std::vector<Line> lines;
  for (const std::size_t i : drawn_rows(table, request)) {
    const auto row = static_cast<std::int64_t>(number_at(rows, i));
    const auto found = std::find_if(table.curves.begin(), table.curves.end(),
                                    [&](const RowCurves& c) { return c.row == row; });
    if (found == table.curves.end()) continue;
    const std::vector<double>* x = nullptr;
    const std::vector<double>* y = nullptr;
    for (const auto& [name, values] : found->arrays) {
      if (name == request.x) x = &values;
      if (name == request.y) y = &values;
    }
    if (!x || !y || x->size() != y->size()) continue;
    std::string label;
    for (const std::string& g : request.group_by) {
      label += (label.empty() ? "" : ", ") + group_label(g, text_at(table.column(g), i));
    }
    if (label.empty()) label = "row " + std::to_string(row);
    const auto same = std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.label == label && l.x == *x; });
    if (same == lines.end()) {
      lines.push_back({label, *x, *y, 1});
    } else {
      for (std::size_t k = 0; k < y->size(); ++k) same->y_sum[k] += (*y)[k];
      ++same->count;
    }
  }
  std::vector<PlotSeries> series;
  int color = 1;
  for (const Line& l : lines) {
    PlotSeries line{l.label, {}, {}, {}, false, false, color++};
    for (std::size_t k = 0; k < l.x.size(); ++k) {
      const double y = l.y_sum[k] / l.count;
      if ((request.log_x && l.x[k] <= 0) || (request.log_y && y <= 0)) continue;
      line.x.push_back(l.x[k]);
      line.y.push_back(y);
    }
    if (!line.x.empty()) series.push_back(std::move(line));
  }
  return series;
}

}  // namespace

std::vector<PlotSeries> aggregate_series(const ResultsTable& table, const PlotRequest& request) {
  const std::string missing = missing_plot_columns(table, request);
  EMBPRIV_CHECK(missing.empty(), missing);
  if (request.curves) return curve_series(table, request);
  const Column& x = table.column(request.x);
  const Column& y = table.column(request.y);
  const Column* y_stderr = table.has_column(request.y + "_stderr") ? &table.column(request.y + "_stderr") : nullptr;
  const Column* theory = request.theory.empty() ? nullptr : &table.column(request.theory);
  const Column* along = request.along.empty() ? nullptr : &table.column(request.along);
  std::map<std::string, std::map<double, Cell>, NaturalLess> groups;
  for (const std::size_t i : drawn_rows(table, request)) {
    std::string label;
    for (const std::string& g : request.group_by) {
      label += (label.empty() ? "" : ", ") + group_label(g, text_at(table.column(g), i));
    }
    const double xi = number_at(x, i), yi = number_at(y, i);
    if (!std::isfinite(xi) || (request.log_x && xi <= 0)) continue;
    Cell& cell = groups[label][along ? number_at(*along, i) : xi];
    if (std::isfinite(yi) && !(request.log_y && yi <= 0)) {
      cell.x.push_back(xi);
      cell.y.push_back(yi);
      if (y_stderr) cell.stderr_y.push_back(number_at(*y_stderr, i));
    }
    if (theory && std::isfinite(number_at(*theory, i))) cell.theory.push_back(number_at(*theory, i));
  }
  std::vector<PlotSeries> series;
  int color = 1;
  for (const auto& [label, cells] : groups) {
    PlotSeries measured{label.empty() ? request.y : label, {}, {}, {}, false, false, color};
    PlotSeries expected{(label.empty() ? "" : label + " ") + request.theory_label, {}, {}, {}, false, true, color};
    bool bars = false;
    for (const auto& [key, cell] : cells) {
      const double xi = along && !cell.x.empty() ? mean(cell.x) : key;
      if (!cell.y.empty()) {
        measured.x.push_back(xi);
        measured.y.push_back(mean(cell.y));
        double bar = 0;
        if (cell.y.size() >= 2) {
          bar = standard_error(cell.y);
        } else if (!cell.stderr_y.empty() && std::isfinite(cell.stderr_y[0])) {
          bar = cell.stderr_y[0];
        }
        bars |= bar > 0;
        measured.y_error.push_back(bar);
      }
      if (!cell.theory.empty()) {
        expected.x.push_back(xi);
        expected.y.push_back(mean(cell.theory));
      }
    }
    if (!bars) measured.y_error.clear();
    if (!measured.x.empty()) series.push_back(std::move(measured));
    if (!expected.x.empty()) series.push_back(std::move(expected));
    ++color;
  }
  return series;
}

std::string figure_title(const std::string& run_name, const std::vector<const PlotRequest*>& requests) {
  // What is swept: the x axes of the panels (columns, not /curves arrays) and the columns that
  // split the lines, each named once in the order the panels use them.
  std::vector<std::string> x_axes, lines;
  const auto add_once = [](std::vector<std::string>& names, const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const PlotRequest* request : requests) {
    if (!request->curves) add_once(x_axes, request->x);
    for (const std::string& g : request->group_by) add_once(lines, g);
  }
  const auto joined = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
  };
  std::string title = run_name;
  if (!x_axes.empty()) title += ": swept " + joined(x_axes) + " (x axis)";
  if (!lines.empty()) title += std::string(x_axes.empty() ? ": " : "; ") + "one line per " + joined(lines);
  return title;
}

std::vector<std::string> render_plots(const ResultsTable& table,
                                      const std::vector<PlotRequest>& requests,
                                      const std::string& stem) {
  // Figures in the order of their first request: a request alone, or every request of a page.
  struct Figure {
    std::string name;
    std::vector<PlotSpec> panels;
    std::vector<const PlotRequest*> requests;
  };
  std::vector<Figure> figures;
  std::map<std::string, std::size_t> page_figure;
  for (const PlotRequest& request : requests) {
    PlotSpec panel;
    panel.title = request.title.empty() ? request.y + " vs " + request.x : request.title;
    panel.x_label = request.x_label.empty() ? request.x : request.x_label;
    panel.y_label = request.y;
    panel.log_x = request.log_x;
    panel.log_y = request.log_y;
    panel.series = aggregate_series(table, request);
    const AxisConvention convention = axis_convention(request.y, request.curves);
    if (convention.probability && !request.log_y) {
      panel.y_range = std::pair{-kProbabilityAxisMargin, 1 + kProbabilityAxisMargin};
    }
    panel.references = convention.references;
    // Nothing measured (language-model metrics of a run without a model; a learned attack the
    // run skipped, whose panel would repeat its dashed reference lines alone): no panel.
    if (std::none_of(panel.series.begin(), panel.series.end(), [](const PlotSeries& s) { return !s.dashed; })) {
      info("plot '" + request.name + "' skipped: no ok rows with finite " + request.x + " and " + request.y);
      continue;
    }
    if (request.page.empty()) {
      figures.push_back({request.name, {panel}, {&request}});
    } else if (const auto found = page_figure.find(request.page); found != page_figure.end()) {
      figures[found->second].panels.push_back(panel);
      figures[found->second].requests.push_back(&request);
    } else {
      page_figure[request.page] = figures.size();
      figures.push_back({request.page, {panel}, {&request}});
    }
  }
  std::vector<std::string> written;
  const std::string run_name = std::filesystem::path(stem).filename().string();
  for (const Figure& figure : figures) {
    const std::string title = figure_title(run_name, figure.requests);
    for (const auto& [format, extension] :
         {std::pair{PlotFormat::png, ".png"}, std::pair{PlotFormat::svg, ".svg"}}) {
      const std::string path = stem + "." + figure.name + extension;
      plot_figure(figure.panels, path, format, title);
      written.push_back(path);
    }
  }
  return written;
}

}  // namespace embpriv
