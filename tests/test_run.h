#pragma once
// Runs an experiment config (YAML text, plus overrides) in a temporary folder, without plots,
// and returns its results table: the tests of the experiment types call it.
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "experiments/engine/runner.h"
#include "experiments/types/registry.h"
#include "tests/catch.h"
#include "tests/test_temp_dir.h"

namespace embpriv {

struct ExperimentRun {
  TempDir dir;
  explicit ExperimentRun(const std::string& prefix) : dir(prefix) {}
  ResultsTable operator()(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
    std::ofstream(dir / "c.yaml") << yaml;
    RunOptions options;
    options.config_path = dir / "c.yaml";
    options.overrides = overrides;
    options.out = dir / "r.h5";
    options.overwrite = true;
    options.plot = false;
    std::ostringstream log;
    const int status = run_experiment(options, default_experiment_registry(), default_mechanism_registry(), log);
    INFO(log.str());
    REQUIRE(status == 0);
    return read_results_h5(options.out);
  }
  // Checks the config (every grid point) without running it: throws what the engine throws.
  int dry_run(const std::string& yaml) {
    std::ofstream(dir / "c.yaml") << yaml;
    RunOptions options;
    options.config_path = dir / "c.yaml";
    options.dry_run = true;
    std::ostringstream log;
    return run_experiment(options, default_experiment_registry(), default_mechanism_registry(), log);
  }
};

inline double number_at_row(const ResultsTable& t, const std::string& column, std::size_t row) {
  return std::get<std::vector<double>>(t.column(column).values)[row];
}
inline std::string text_at_row(const ResultsTable& t, const std::string& column, std::size_t row) {
  return std::get<std::vector<std::string>>(t.column(column).values)[row];
}

}  // namespace embpriv
