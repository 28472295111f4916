#include "experiments/plot.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace embpriv {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void plot_png(const std::vector<PlotSpec>& panels, const std::string& path) {
  EMBPRIV_CHECK(!panels.empty(), "nothing to plot for " << path);
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  const std::string stem = path + ".tmp." + std::to_string(getpid());
  const std::string data_path = stem + ".dat", script_path = stem + ".gp", png_path = stem + ".png";
  {
    std::ofstream data(data_path);
    data.precision(10);
    for (const PlotSpec& panel : panels) {
      for (const PlotSeries& s : panel.series) {  // one gnuplot data block per series
        for (std::size_t i = 0; i < s.x.size(); ++i) data << s.x[i] << ' ' << s.y[i] << '\n';
        data << "\n\n";
      }
    }
  }
  {
    std::ofstream script(script_path);
    script << "set terminal pngcairo noenhanced size " << 650 * panels.size()
           << ",600 font 'Sans,10'\n"
           << "set output " << quoted(png_path) << "\n"
           << "set multiplot layout 1," << panels.size() << "\n";
    std::size_t block = 0;
    for (const PlotSpec& panel : panels) {
      script << "set title " << quoted(panel.title) << "\n"
             << "set xlabel " << quoted(panel.x_label) << "\nset ylabel "
             << quoted(panel.y_label) << "\nset grid\nset key top left Left reverse box\n"
             << (panel.log_x ? "set logscale x\n" : "unset logscale x\n") << "plot ";
      for (std::size_t i = 0; i < panel.series.size(); ++i, ++block) {
        const PlotSeries& s = panel.series[i];
        script << (i ? ", \\\n     " : "") << quoted(data_path) << " index " << block
               << " using 1:2 with " << (s.points ? "points pt 7 ps 1.1" : "lines lw 2")
               << " lt " << s.color << " title " << quoted(s.label);
      }
      script << "\n";
    }
    script << "unset multiplot\n";
  }
  const std::string command = "gnuplot " + quoted(script_path) + " 2>" + quoted(stem + ".err");
  const int status = std::system(command.c_str());
  std::string errors;
  {
    std::ifstream err(stem + ".err");
    std::getline(err, errors);
  }
  for (const auto& p : {data_path, script_path, stem + ".err"}) std::filesystem::remove(p);
  EMBPRIV_CHECK(status == 0 && std::filesystem::exists(png_path),
                "gnuplot failed to draw " << path << " (is gnuplot installed? scripts/setup.sh "
                                          << "installs it): " << errors);
  std::filesystem::rename(png_path, path);
}

}  // namespace embpriv
