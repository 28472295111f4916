// The figures of a results table: averaging over seeds, error bars, failed rows, theory lines,
// and the PNG/SVG files gnuplot writes.
#include "tests/catch.h"
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/error.h"
#include "experiments/plots/standard_plots.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Two groups (vmf, gaussian) x two epsilons x two seeds, plus a failed row and a NaN value.
ResultsTable table() {
  ResultsTable t;
  t.columns = {
      {"mechanism.epsilon", std::vector<double>{1, 1, 2, 2, 1, 1, 2, 2, 2}},
      {"mechanism_name", std::vector<std::string>{"vmf", "vmf", "vmf", "vmf", "gaussian", "gaussian",
                                                  "gaussian", "gaussian", "gaussian"}},
      {"status", std::vector<std::string>{"ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "failed"}},
      {"mean_cosine", std::vector<double>{0.1, 0.3, 0.5, 0.5, 0.01, kNaN, 0.02, 0.04, 99}},
      {"mean_cosine_stderr", std::vector<double>{0, 0, 0, 0, 0.005, 0, 0, 0, 0}},
      {"theory_cosine", std::vector<double>{0.2, 0.2, 0.5, 0.5, kNaN, kNaN, kNaN, kNaN, kNaN}},
  };
  return t;
}

PlotRequest request() {
  return {"cosine", "mechanism.epsilon", "mean_cosine", {"mechanism_name"}, "theory_cosine",
          true, false, ""};
}

}  // namespace

TEST_CASE("plot lines average the seeds of a point, with the standard error as bar", "[engine]") {
  const std::vector<PlotSeries> series = aggregate_series(table(), request());
  // Groups sorted by label: gaussian (measured only: its theory is NaN), vmf, vmf theory.
  REQUIRE(series.size() == 3);
  const PlotSeries& gaussian = series[0];
  CHECK(gaussian.label == "mechanism_name=gaussian");
  CHECK(gaussian.x == std::vector<double>{1, 2});
  // eps 1: one finite seed (the other is NaN): its own stderr column gives the bar.
  CHECK(gaussian.y[0] == 0.01);
  CHECK(gaussian.y_error[0] == 0.005);
  // eps 2: the failed row (99) is left out; mean of 0.02 and 0.04, stderr |a - b| / 2.
  CHECK(gaussian.y[1] == Approx(0.03).margin(1e-15));
  CHECK(gaussian.y_error[1] == Approx(0.01).margin(1e-15));
  const PlotSeries& vmf = series[1];
  CHECK(vmf.y == std::vector<double>{0.2, 0.5});
  CHECK(vmf.y_error[0] == Approx(0.1).margin(1e-15));
  CHECK(vmf.y_error[1] == 0);
  const PlotSeries& theory = series[2];
  CHECK(theory.label == "mechanism_name=vmf theory");
  CHECK(theory.dashed);
  CHECK(theory.color == vmf.color);
  CHECK(theory.y == std::vector<double>{0.2, 0.5});
}

TEST_CASE("a line along another column averages x and y per value of it", "[engine]") {
  ResultsTable t = table();
  PlotRequest tradeoff{"tradeoff", "theory_cosine", "mean_cosine", {}, "", false, false, ""};
  tradeoff.along = "mechanism.epsilon";
  std::get<std::vector<double>>(t.columns[5].values) = {0.2, 0.4, 0.5, 0.5, 0.1, 0.1, 0.3, 0.3, 9};
  const auto series = aggregate_series(t, tradeoff);
  REQUIRE(series.size() == 1);
  // eps 1: rows 0, 1, 4 (row 5 is NaN in y): x = mean(0.2, 0.4, 0.1), y = mean(0.1, 0.3, 0.01).
  CHECK(series[0].x[0] == Approx(0.7 / 3).margin(1e-15));
  CHECK(series[0].y[0] == Approx(0.41 / 3).margin(1e-15));
  // eps 2: rows 2, 3, 6, 7 (row 8 failed).
  CHECK(series[0].x[1] == Approx(0.4).margin(1e-15));
  CHECK(series[0].y[1] == Approx(1.06 / 4).margin(1e-15));
}

TEST_CASE("per-row curves of one label with equal x are averaged (the seeds of a point)", "[engine]") {
  ResultsTable t;
  t.columns = {{"row", std::vector<std::int64_t>{0, 1, 2, 3}},
               {"method", std::vector<std::string>{"a", "a", "b", "b"}},
               {"status", std::vector<std::string>{"ok", "ok", "ok", "failed"}}};
  t.curves = {{0, {{"round", {1, 2}}, {"psr", {0.5, 0.7}}}},
              {1, {{"round", {1, 2}}, {"psr", {0.6, 0.9}}}},
              {2, {{"round", {1, 2}}, {"psr", {0.1, 0.2}}}},
              {3, {{"round", {1, 2}}, {"psr", {9.0, 9.0}}}}};
  PlotRequest rounds{"rounds", "round", "psr", {"method"}, "", false, false, ""};
  rounds.curves = true;
  const auto series = aggregate_series(t, rounds);
  REQUIRE(series.size() == 2);  // a (rows 0 and 1 averaged), b (row 3 failed)
  CHECK(series[0].label == "method=a");
  CHECK(series[0].y[0] == Approx(0.55));
  CHECK(series[0].y[1] == Approx(0.8));
  CHECK(series[1].y == std::vector<double>{0.1, 0.2});
  // Different x (ROC curves of two seeds): two lines.
  t.curves[1].arrays[0].second = {1, 3};
  CHECK(aggregate_series(t, rounds).size() == 3);
}

TEST_CASE("extremes_of keeps the rows at the smallest and largest value of a column", "[engine]") {
  ResultsTable t;
  t.columns = {{"row", std::vector<std::int64_t>{0, 1, 2, 3, 4}},
               {"eps", std::vector<double>{0.1, 1, 10, 100, 1000}},
               {"status", std::vector<std::string>{"ok", "ok", "ok", "ok", "failed"}}};
  for (std::int64_t r = 0; r < 5; ++r) t.curves.push_back({r, {{"round", {1, 2}}, {"psr", {0.5, 0.5 + 0.1 * r}}}});
  PlotRequest rounds{"rounds", "round", "psr", {"eps"}, "", false, false, ""};
  rounds.curves = true;
  CHECK(aggregate_series(t, rounds).size() == 4);
  rounds.extremes_of = {"eps"};
  const auto series = aggregate_series(t, rounds);
  REQUIRE(series.size() == 2);  // eps 0.1 and 100: the row at 1000 failed, so 100 is the largest
  CHECK(series[0].label == "eps=0.1");
  CHECK(series[1].y[1] == Approx(0.8));
  rounds.extremes_of = {"epsilon"};
  CHECK_THROWS_WITH(aggregate_series(t, rounds), Catch::Contains("no column 'epsilon'"));
}

TEST_CASE("log axes drop points they cannot show; missing columns are named", "[engine]") {
  PlotRequest log_y = request();
  log_y.log_y = true;
  ResultsTable t = table();
  std::get<std::vector<double>>(t.columns[3].values)[0] = -0.1;  // vmf, eps 1, seed 1
  const auto series = aggregate_series(t, log_y);
  CHECK(series[1].y[0] == 0.3);  // only the positive seed is left
  PlotRequest bad = request();
  bad.y = "mean_cosin";
  CHECK_THAT(missing_plot_columns(t, bad),
             Contains("no column 'mean_cosin'") && Contains("columns: mechanism.epsilon"));
  CHECK(missing_plot_columns(t, request()).empty());
  CHECK_THROWS_WITH(aggregate_series(t, bad), Contains("mean_cosin"));
  PlotRequest text_axis = request();
  text_axis.x = "mechanism_name";
  CHECK_THROWS_WITH(aggregate_series(t, text_axis), Contains("holds text"));
}

TEST_CASE("render_plots writes a PNG and an SVG per figure", "[engine]") {
  const fs::path dir = fs::temp_directory_path() / ("embpriv_plots_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const auto files = render_plots(table(), {request()}, (dir / "run").string());
  REQUIRE(files.size() == 2);
  CHECK(files[0] == (dir / "run.cosine.png").string());
  std::ifstream png(files[0], std::ios::binary);
  char signature[8] = {};
  png.read(signature, 8);
  CHECK(std::string(signature + 1, 3) == "PNG");
  std::ifstream svg(files[1]);
  const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Contains("<svg") && Contains("mechanism_name=vmf theory"));
  // A figure with nothing finite to draw (a metric the run does not have) is skipped.
  PlotRequest nothing = request();
  nothing.name = "nothing";
  nothing.y = "theory_cosine";
  nothing.group_by = {"status"};
  ResultsTable gaussian_only = table();
  std::get<std::vector<double>>(gaussian_only.columns[5].values).assign(9, NAN);
  CHECK(render_plots(gaussian_only, {nothing}, (dir / "run").string()).empty());
  // Requests of one page become the panels of one figure.
  PlotRequest left = request(), right = request();
  left.page = right.page = "page";
  right.name = "other";
  right.y = "mean_cosine_stderr";
  const auto page = render_plots(table(), {left, right}, (dir / "paged").string());
  CHECK(page == std::vector<std::string>{(dir / "paged.page.png").string(), (dir / "paged.page.svg").string()});
  fs::remove(page[0]);
  fs::remove(page[1]);
  // Nothing left behind but the two figures.
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 2);
  fs::remove_all(dir);
}

TEST_CASE("a figure's title names the run and what its panels sweep", "[engine]") {
  PlotRequest knn = request(), learned = request();
  learned.group_by = {"mechanism_name", "status"};
  CHECK(figure_title("inversion_glove", {&knn, &learned}) ==
        "inversion_glove: swept mechanism.epsilon (x axis); one line per mechanism_name, status");
  PlotRequest roc = request();
  roc.curves = true;
  CHECK(figure_title("mia", {&roc}) == "mia: one line per mechanism_name");
}

TEST_CASE("the gnuplot script keeps legends off the labels, fixes probability axes, draws chance", "[engine]") {
  PlotSpec probability;
  probability.title = "AUC";
  PlotSeries vmf;
  vmf.label = "vmf";
  vmf.x = {1, 2};
  vmf.y = {0.6, 0.7};
  probability.series.push_back(vmf);
  probability.y_range = std::pair{-0.02, 1.02};
  probability.references = {{"chance (AUC 0.5)", 0.5}, {"diagonal", 0, true}};
  PlotSpec free_axis = probability;
  free_axis.y_range.reset();
  free_axis.references.clear();
  const std::string script = gnuplot_script({probability, free_axis}, "d.dat", "i.png", PlotFormat::png, "run: x");
  CHECK_THAT(script, Contains("set multiplot layout 1,2 title 'run: x'"));
  CHECK_THAT(script, Contains("set key below Left reverse box height 2"));
  CHECK_THAT(script, Contains("set xlabel ''.\"\\n\""));  // an empty line between label and key
  CHECK_THAT(script, Contains("set yrange [-0.02:1.02]"));
  CHECK_THAT(script, Contains("0.5 with lines lc rgb '#555555' dt 3 lw 1.5 title 'chance (AUC 0.5)'"));
  CHECK_THAT(script, Contains("x with lines lc rgb '#555555' dt 3 lw 1.5 title 'diagonal'"));
  // The second panel autoscales again rather than inheriting the first one's range.
  const std::string second = script.substr(script.rfind("set title"));
  CHECK_THAT(second, Contains("set autoscale yfix"));
  CHECK(second.find("yrange") == std::string::npos);
  // A title wider than its figure breaks after "; " into gnuplot's two-line string.
  const std::string long_title =
      "privateai_demo: swept dp.epsilon (x axis); one line per method, aggregator, dp.clip_norm";
  CHECK_THAT(gnuplot_script({free_axis}, "d.dat", "i.png", PlotFormat::png, long_title),
             Contains("title 'privateai_demo: swept dp.epsilon (x axis);'.\"\\n\".'one line per method, "
                      "aggregator, dp.clip_norm'"));
}

TEST_CASE("render_plots draws a probability from 0 to 1 with its chance line", "[engine]") {
  const fs::path dir = fs::temp_directory_path() / ("embpriv_plots_chance_" + std::to_string(getpid()));
  fs::create_directories(dir);
  ResultsTable t = table();
  t.columns.push_back({"auc_loss", std::vector<double>{0.5, 0.6, 0.7, 0.8, 0.5, 0.5, 0.6, 0.6, 0.9}});
  PlotRequest auc = request();
  auc.name = "auc";
  auc.y = "auc_loss";
  auc.theory.clear();
  const auto files = render_plots(t, {auc}, (dir / "run").string());
  REQUIRE(files.size() == 2);
  std::ifstream svg(files[1]);
  const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Contains("chance (AUC 0.5)") && Contains("run: swept mechanism.epsilon (x axis)"));
  fs::remove_all(dir);
}
