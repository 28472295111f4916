// The audit figure over the number of trials (experiments/types/audit/audit_trials_figure.h):
// drawn from a real audit run with two trial counts, not drawn from a run with one.
#include <cmath>
#include <filesystem>

#include "experiments/types/audit/audit_trials_figure.h"
#include "tests/catch.h"
#include "tests/test_run.h"

using namespace embpriv;

TEST_CASE("audit: the bounds-versus-trials figure needs two trial counts", "[engine][audit]") {
  ExperimentRun run("embpriv_audit_trials_figure_test");
  const ResultsTable two = run("type: audit\nsweep:\n  audit.trials: [100, 1000]\n");
  const std::string stem = run.dir / "r";
  const std::vector<std::string> files = plot_audit_bounds_versus_trials(two, stem);
  REQUIRE(files == std::vector<std::string>{stem + ".bounds_versus_trials.png", stem + ".bounds_versus_trials.svg"});
  for (const std::string& f : files) CHECK(std::filesystem::file_size(f) > 1000);
  const ResultsTable one = run("type: audit\naudit: {trials: 100}\n");
  CHECK(plot_audit_bounds_versus_trials(one, run.dir / "one").empty());
  CHECK_FALSE(std::filesystem::exists(run.dir / "one.bounds_versus_trials.png"));
}

TEST_CASE("audit: the bounds-versus-trials figure draws a claim with delta = 0 (gdp_eps_low NaN)",
          "[engine][audit][attacks]") {
  ExperimentRun run("embpriv_audit_trials_figure_nan_test");
  const ResultsTable t =
      run("type: audit\nmechanism: {name: laplace, epsilon: 2, clip_norm: 1}\nsweep:\n  audit.trials: [100, 1000]\n");
  REQUIRE(t.rows() == 2);
  CHECK(std::isnan(number_at_row(t, "gdp_eps_low", 0)));
  CHECK(std::isnan(number_at_row(t, "gdp_eps_low", 1)));
  const std::vector<std::string> files = plot_audit_bounds_versus_trials(t, run.dir / "laplace");
  REQUIRE(files.size() == 2);
  for (const std::string& f : files) CHECK(std::filesystem::file_size(f) > 1000);
}
