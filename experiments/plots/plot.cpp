#include "experiments/plots/plot.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/atomic_file.h"
#include "core/error.h"

namespace embpriv {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void plot_figure(const std::vector<PlotSpec>& panels, const std::string& path, PlotFormat format) {
  EMBPRIV_CHECK(!panels.empty(), "nothing to plot for " << path);
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  // Every temporary is removed on the way out, whatever fails (a full disk, gnuplot).
  TemporaryFiles temporaries;
  const std::string data_path = temporaries.add(temporary_path(path, ".dat")),
                    script_path = temporaries.add(temporary_path(path, ".gp")),
                    errors_path = temporaries.add(temporary_path(path, ".err")),
                    image_path = temporaries.add(
                        temporary_path(path, format == PlotFormat::png ? ".png" : ".svg"));
  {
    std::ofstream data(data_path);
    data.precision(10);
    for (const PlotSpec& panel : panels) {
      for (const PlotSeries& s : panel.series) {  // one gnuplot data block per series
        for (std::size_t i = 0; i < s.x.size(); ++i) {
          data << s.x[i] << ' ' << s.y[i];
          if (!s.y_error.empty()) data << ' ' << s.y_error[i];
          data << '\n';
        }
        data << "\n\n";
      }
    }
    data.flush();
    EMBPRIV_CHECK(data, "cannot write the plot data " << data_path << " (is the disk full?)");
  }
  // Up to two panels side by side; more fill rows of two.
  const std::size_t columns = panels.size() <= 2 ? panels.size() : 2;
  const std::size_t rows = (panels.size() + columns - 1) / columns;
  {
    std::ofstream script(script_path);
    script << (format == PlotFormat::png ? "set terminal pngcairo noenhanced dashed size "
                                         : "set terminal svg noenhanced dashed size ")
           << 650 * columns << "," << 650 * rows << " font 'Sans,10'\n"
           << "set output " << quoted(image_path) << "\n"
           // Matplotlib's tab10 colors: distinct, and readable on white (gnuplot's 5th is yellow).
           << "set linetype 1 lc rgb '#1f77b4'\nset linetype 2 lc rgb '#ff7f0e'\n"
           << "set linetype 3 lc rgb '#2ca02c'\nset linetype 4 lc rgb '#d62728'\n"
           << "set linetype 5 lc rgb '#9467bd'\nset linetype 6 lc rgb '#8c564b'\n"
           << "set linetype 7 lc rgb '#e377c2'\nset linetype 8 lc rgb '#7f7f7f'\n"
           << "set linetype 9 lc rgb '#bcbd22'\nset linetype 10 lc rgb '#17becf'\n"
           << "set linetype cycle 10\n"
           << "set multiplot layout " << rows << "," << columns << "\n";
    std::size_t block = 0;
    for (const PlotSpec& panel : panels) {
      script << "set title " << quoted(panel.title) << "\n"
             << "set xlabel " << quoted(panel.x_label) << "\nset ylabel "
             << quoted(panel.y_label) << "\nset grid\nset key below Left reverse box\n"
             // Lines at y = 0 or 1 stay off the frame (linear y only: on a log axis the
             // margin would span decades).
             << (panel.log_y ? "set offsets 0, 0, 0, 0\n" : "set offsets 0, 0, graph 0.04, graph 0.04\n")
             << (panel.log_x ? "set logscale x\n" : "unset logscale x\n")
             << (panel.log_y ? "set logscale y\n" : "unset logscale y\n") << "plot ";
      for (std::size_t i = 0; i < panel.series.size(); ++i, ++block) {
        const PlotSeries& s = panel.series[i];
        const bool bars = !s.y_error.empty();
        const std::string style = bars ? (s.points ? "yerrorbars pt 7 ps 1.1" : "yerrorlines pt 7 ps 0.8 lw 2")
                                       : (s.points ? "points pt 7 ps 1.1" : "lines lw 2");
        script << (i ? ", \\\n     " : "") << quoted(data_path) << " index " << block
               << " using " << (bars ? "1:2:3" : "1:2") << " with " << style << " lt "
               << s.color << (s.dashed ? " dt 2" : "") << " title " << quoted(s.label);
      }
      script << "\n";
    }
    script << "unset multiplot\n";
    script.flush();
    EMBPRIV_CHECK(script, "cannot write the plot script " << script_path << " (is the disk full?)");
  }
  const std::string command = "gnuplot " + quoted(script_path) + " 2>" + quoted(errors_path);
  const int status = std::system(command.c_str());
  std::string errors;
  {
    std::ifstream err(errors_path);
    std::getline(err, errors);
  }
  EMBPRIV_CHECK(status == 0 && std::filesystem::exists(image_path),
                "gnuplot failed to draw " << path << " (is gnuplot installed? scripts/setup.sh "
                                          << "installs it): " << errors);
  rename_into_place(image_path, path);
}

}  // namespace embpriv
