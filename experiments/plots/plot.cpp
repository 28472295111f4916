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

// A figure title in lines that fit `width` pixels at 12 pt (at most 10 px a character): split
// after "; " or ": " where a line would run over.
std::vector<std::string> wrapped(const std::string& title, std::size_t width) {
  constexpr std::size_t kPixelsPerCharacter = 10;
  const std::size_t fits = width / kPixelsPerCharacter;
  std::vector<std::string> lines;
  std::string rest = title;
  while (rest.size() > fits) {
    std::size_t cut = std::string::npos;
    for (const char* separator : {"; ", ": "}) {
      const std::size_t at = rest.rfind(separator, fits);
      if (at != std::string::npos && (cut == std::string::npos || at > cut)) cut = at;
    }
    if (cut == std::string::npos || cut == 0) break;
    lines.push_back(rest.substr(0, cut + 1));
    rest = rest.substr(cut + 2);
  }
  if (!rest.empty()) lines.push_back(rest);
  return lines;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// What is wrong with an image gnuplot wrote, or "" when it is whole: gnuplot exits 0 when the
// disk fills while it writes, leaving a truncated file. A PNG starts with its 8-byte signature
// and ends with the IEND chunk (PNG spec, sec. 5.2 and 11.2.5: length 0, "IEND", CRC AE426082);
// an SVG ends with its </svg> tag.
std::string image_problem(const std::string& bytes, PlotFormat format) {
  if (bytes.empty()) return "is empty";
  if (format == PlotFormat::png) {
    static const std::string signature("\x89PNG\r\n\x1a\n", 8);
    static const std::string iend("\0\0\0\0IEND\xae\x42\x60\x82", 12);
    if (bytes.compare(0, signature.size(), signature) != 0) return "is not a PNG";
    if (bytes.size() < signature.size() + iend.size() ||
        bytes.compare(bytes.size() - iend.size(), iend.size(), iend) != 0) {
      return "is truncated (no IEND chunk at its end)";
    }
    return "";
  }
  const std::size_t end = bytes.find_last_not_of(" \t\r\n");
  static const std::string close = "</svg>";
  if (end == std::string::npos || end + 1 < close.size() || bytes.compare(end + 1 - close.size(), close.size(), close) != 0) {
    return "is truncated (no </svg> at its end)";
  }
  return "";
}

}  // namespace

std::string gnuplot_script(const std::vector<PlotSpec>& panels, const std::string& data_path,
                           const std::string& image_path, PlotFormat format, const std::string& title) {
  // Up to two panels side by side; more fill rows of two.
  const std::size_t columns = panels.size() <= 2 ? panels.size() : 2;
  const std::size_t rows = (panels.size() + columns - 1) / columns;
  const std::vector<std::string> title_lines = wrapped(title, 650 * columns);
  std::ostringstream script;
  script << (format == PlotFormat::png ? "set terminal pngcairo noenhanced dashed size "
                                       : "set terminal svg noenhanced dashed size ")
         << 650 * columns << "," << 650 * rows + 30 * title_lines.size() << " font 'Sans,10'\n"
         << "set output " << quoted(image_path) << "\n"
         // Matplotlib's tab10 colors: distinct, and readable on white (gnuplot's 5th is yellow).
         << "set linetype 1 lc rgb '#1f77b4'\nset linetype 2 lc rgb '#ff7f0e'\n"
         << "set linetype 3 lc rgb '#2ca02c'\nset linetype 4 lc rgb '#d62728'\n"
         << "set linetype 5 lc rgb '#9467bd'\nset linetype 6 lc rgb '#8c564b'\n"
         << "set linetype 7 lc rgb '#e377c2'\nset linetype 8 lc rgb '#7f7f7f'\n"
         << "set linetype 9 lc rgb '#bcbd22'\nset linetype 10 lc rgb '#17becf'\n"
         << "set linetype cycle 10\n"
         << "set multiplot layout " << rows << "," << columns;
  for (std::size_t i = 0; i < title_lines.size(); ++i) {  // lines joined by gnuplot's "\n"
    script << (i ? ".\"\\n\"." : " title ") << quoted(title_lines[i]);
  }
  if (!title_lines.empty()) script << " font 'Sans,12'";
  script << "\n";
  std::size_t block = 0;
  for (const PlotSpec& panel : panels) {
    script << "set title " << quoted(panel.title) << "\n"
           // The legend sits below the panel, never over the data. gnuplot 5.4 places a boxed
           // key below so that its frame touches the x label: `height 2` adds a line of space
           // inside the frame, above and below the entries, and an empty second line of the x
           // label keeps the frame a line below the label's text.
           << "set xlabel " << quoted(panel.x_label) << ".\"\\n\"\nset ylabel " << quoted(panel.y_label)
           << "\nset grid\n"
           << "set key below Left reverse box height 2\n";
    if (panel.y_range) {
      script << "set yrange [" << panel.y_range->first << ":" << panel.y_range->second << "]\n"
             << "set offsets 0, 0, 0, 0\n";
    } else {
      // The axis ends at the data plus a margin (`yfix`: not at the next tic, which made a
      // 0..1 quantity span -0.2..1.2), so lines at the extremes stay off the frame (linear y
      // only: on a log axis the margin would span decades).
      script << (panel.log_y ? "set autoscale y\n" : "set autoscale yfix\n")
             << (panel.log_y ? "set offsets 0, 0, 0, 0\n" : "set offsets 0, 0, graph 0.04, graph 0.04\n");
    }
    script << (panel.log_x ? "set logscale x\n" : "unset logscale x\n")
           << (panel.log_y ? "set logscale y\n" : "unset logscale y\n") << "plot ";
    for (std::size_t i = 0; i < panel.series.size(); ++i, ++block) {
      const PlotSeries& s = panel.series[i];
      const bool bars = !s.y_error.empty();
      const std::string style = bars ? (s.points ? "yerrorbars pt 7 ps 1.1" : "yerrorlines pt 7 ps 0.8 lw 2")
                                     : (s.points ? "points pt 7 ps 1.1" : "lines lw 2");
      script << (i ? ", \\\n     " : "") << quoted(data_path) << " index " << block << " using "
             << (bars ? "1:2:3" : "1:2") << " with " << style << " lt " << s.color << (s.dashed ? " dt 2" : "")
             << " title " << quoted(s.label);
    }
    for (const ReferenceLine& line : panel.references) {
      std::ostringstream y;
      y.precision(10);
      y << line.y;
      script << (panel.series.empty() ? "" : ", \\\n     ") << (line.diagonal ? "x" : y.str())
             << " with lines lc rgb '#555555' dt 3 lw 1.5 title " << quoted(line.label);
    }
    script << "\n";
  }
  script << "unset multiplot\n";
  return script.str();
}

void plot_figure(const std::vector<PlotSpec>& panels, const std::string& path, PlotFormat format,
                 const std::string& title) {
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
  {
    std::ofstream script(script_path);
    script << gnuplot_script(panels, data_path, image_path, format, title);
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
  // The figure goes to `path` as results do (core/atomic_file.h: synced, then renamed), once it
  // is known to be whole.
  const std::string image = read_bytes(image_path);
  const std::string problem = image_problem(image, format);
  EMBPRIV_CHECK(problem.empty(), "gnuplot's image for " << path << " " << problem
                                                        << " (is the disk full?); " << path << " is left as it was");
  write_file_atomically(path, image);
}

}  // namespace embpriv
