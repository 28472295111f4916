#pragma once
// One kind of experiment the engine can sweep (`type:` in a config): its keys and defaults, how
// to check and run one grid point, the columns it fills and the figures it draws. The engine
// (experiments/engine/runner.h) does everything else: grid, seeds, shards, resume, HDF5, plots.
#include <yaml-cpp/yaml.h>

#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/phase_clock.h"
#include "experiments/engine/config_document.h"
#include "experiments/engine/run_cache.h"
#include "experiments/engine/config_keys.h"
#include "experiments/engine/memory_estimate.h"
#include "experiments/plots/standard_plots.h"
#include "experiments/engine/sweep_grid.h"
#include "mechanisms/registry.h"

namespace embpriv {

struct PointInput {
  const GridPoint& point;
  const YAML::Node& config;  // the point's resolved config
  const MechanismRegistry& mechanisms;
  RunCache& cache;  // what the points of this run share (loaded data, models, clusters)
  // The row's phases: run_point calls phases.start("load"), .start("perturb"), ... and the
  // engine stores the seconds of each under /timing/<phase>.
  PhaseClock& phases;
};

// One row's results. Columns are set by name, in any order: the engine writes them in the
// order the type declares them (number_columns, string_columns) and stops with an internal
// error when an ok row sets a column the type does not declare, or leaves a declared one unset.
struct PointResult {
  std::map<std::string, double> numbers;       // the type's number columns, by name
  std::map<std::string, std::string> strings;  // the type's string columns, by name
  std::vector<std::pair<std::string, std::vector<double>>> curves;
  std::string headline;  // a short summary for the log line ("mean_cosine=0.894")
  std::map<std::string, double> phase_seconds;  // filled by the engine from PointInput::phases

  // Sets a number (or string) column; setting one twice is an internal error.
  void set(const std::string& column, double value);
  void set(const std::string& column, std::string value);
};

class ExperimentType {
 public:
  virtual ~ExperimentType() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  // The type's own keys (config_keys.h), in the order the stored config lists them; the engine
  // adds its common keys (run_plan.h: common_keys) and checks every value's kind, range and
  // choices before check_point sees it.
  virtual ConfigKeys keys() const = 0;
  // Checks what the declarations cannot: keys that depend on each other, files that must exist,
  // the mechanism. Throws ConfigError(path, problem).
  virtual void check_point(const YAML::Node& config, const MechanismRegistry& mechanisms) const = 0;
  // Columns every result row gets, in this order (NaN / "" on failed rows); run_point sets each
  // by name (PointResult::set).
  virtual std::vector<std::string> number_columns() const = 0;
  virtual std::vector<std::string> string_columns() const = 0;
  // A rough wall time of one point on one core of a machine like the CI one.
  virtual double estimate_seconds(const YAML::Node& config) const = 0;
  // One point's peak memory (memory_estimate.h: its own tensors and the RunCache data it
  // keeps), from its config alone: the engine compares it with the batch memory limit before any
  // work (experiments/engine/run_memory.h) and the dry run prints it. Each type computes it in
  // experiments/types/<type>/<type>_memory.h.
  virtual MemoryEstimate estimate_memory(const YAML::Node& config) const = 0;
  double estimate_peak_bytes(const YAML::Node& config) const { return estimate_memory(config).peak_bytes(); }
  // The figures `embpriv plot` draws; swept: the swept columns (the x axis is chosen among them).
  virtual std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const = 0;
  virtual PointResult run_point(const PointInput& input) const = 0;

  // Hooks for what needs every row of a run (the defaults do nothing):
  // once a whole run is complete (unsharded, resumed or merged), fills the columns that depend
  // on all rows (bounds: the family-wise verdicts); `config` is the run's resolved config;
  virtual void complete_table(ResultsTable& /*table*/, const YAML::Node& /*config*/) const {}
  // after a complete run, a summary for the reader; a nonzero value becomes the exit code
  // (bounds: 1 when a check fails);
  virtual int report(const ResultsTable& /*table*/, std::ostream& /*out*/) const { return 0; }
  // figures beyond the standard ones, written next to `stem`; returns the files written.
  virtual std::vector<std::string> draw_figures(const ResultsTable& /*table*/, const std::string& /*stem*/) const {
    return {};
  }
};

class ExperimentRegistry {
 public:
  void add(std::unique_ptr<ExperimentType> type);
  // Throws embpriv::Error with the valid names when the type is unknown.
  const ExperimentType& find(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<ExperimentType>> types_;
};

// Helpers for check_point / run_point: the value at a dotted path of a point's config as T, or
// ConfigError(path, "PATH must be EXPECTED, got VALUE") (without `expected`: the kind of T, "an
// integer"; a declared key has been checked already); the point's mechanism, or
// ConfigError("mechanism", the registry's message).
template <class T>
T point_value(const YAML::Node& config, const std::string& path, const char* expected);
template <class T>
T point_value(const YAML::Node& config, const std::string& path);
// Throws ConfigError(path, "PATH PROBLEM") unless ok.
void require_key(bool ok, const std::string& path, const std::string& problem);
// The string at `path` turned into a value by `parse` (an enum's parser, say); the parser's
// embpriv::Error becomes ConfigError(path, "PATH: <why>").
template <class Parse>
auto point_choice(const YAML::Node& config, const std::string& path, const char* expected, Parse parse);
template <class Parse>
auto point_choice(const YAML::Node& config, const std::string& path, Parse parse) {
  return point_choice(config, path, "text", parse);
}
// Resolves every (key, data file) pair (data/tables/data_paths.h); a missing file throws
// ConfigError(key, "KEY: <why>").
void check_data_files(const std::vector<std::pair<std::string, std::string>>& files);
std::unique_ptr<Mechanism> point_mechanism(const YAML::Node& config, const MechanismRegistry& registry);

template <class T>
T point_value(const YAML::Node& config, const std::string& path, const char* expected) {
  try {
    return find_path(config, path).as<T>();
  } catch (const YAML::Exception&) {
    throw ConfigError(path, path + " must be " + expected + ", got " + flow_yaml(find_path(config, path)));
  }
}

// What a value of type T is, for point_value's message.
template <class T>
const char* expected_kind() {
  if constexpr (std::is_same_v<T, bool>) {
    return "true or false";
  } else if constexpr (std::is_integral_v<T>) {
    return "an integer";
  } else if constexpr (std::is_floating_point_v<T>) {
    return "a number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "text";
  } else {
    return "a list";
  }
}

template <class T>
T point_value(const YAML::Node& config, const std::string& path) {
  return point_value<T>(config, path, expected_kind<T>());
}

template <class Parse>
auto point_choice(const YAML::Node& config, const std::string& path, const char* expected, Parse parse) {
  const auto text = point_value<std::string>(config, path, expected);
  try {
    return parse(text);
  } catch (const Error& e) {
    throw ConfigError(path, path + ": " + e.what());
  }
}

}  // namespace embpriv
