#pragma once
// Everything `embpriv run` decides before any work starts: the experiment type, the resolved
// config, the grid, the columns and the figures. Every check of the config happens here, so a
// bad config costs no compute: unknown keys, wrong types, out-of-range values at any grid point
// (each reported with its YAML line or command-line override).
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/engine/config_document.h"
#include "experiments/engine/config_schema.h"
#include "experiments/engine/experiment_type.h"
#include "experiments/plots/standard_plots.h"
#include "experiments/engine/sweep_grid.h"

namespace embpriv {

struct RunPlan {
  const ExperimentType* type = nullptr;
  ConfigDocument document;  // as written, overrides applied
  ConfigSchema schema;
  YAML::Node base;          // defaults + document (sweep included)
  std::vector<SweepAxis> axes;
  std::vector<GridPoint> grid;  // every row of the full run
  std::vector<std::string> swept;
  std::vector<PlotRequest> plots;  // the type's standard figures and the config's `plots:`
  std::string name, out, device;
  std::uint64_t seed = 1;
  std::int64_t seeds = 1;
  int threads = 0;
  std::string config_text;  // block YAML of base: stored with the results
  std::string config_hash;  // of config_text without `out` and `threads` (what cannot change results)

  std::int64_t points() const { return static_cast<std::int64_t>(grid.size()) / seeds; }
};

// The engine's own keys, common to every experiment type.
const ConfigKeys& common_keys();
// The schema of a type's configs: the common keys, then the type's own.
ConfigSchema schema_of(const ExperimentType& type);

// Plans a run from a config file (or, for `embpriv plot`, from a results file's stored config).
RunPlan plan_run(const std::string& config_path, const std::vector<std::string>& overrides,
                 const ExperimentRegistry& types, const MechanismRegistry& mechanisms);
RunPlan plan_from_document(ConfigDocument document, const std::vector<std::string>& overrides,
                           const ExperimentRegistry& types, const MechanismRegistry& mechanisms);

// Where a problem with key `path` at one grid point comes from: the sweep entry when the key (or
// a map holding it) was swept, else where the document sets it ("run.yaml:4").
std::string point_location(const RunPlan& plan, const GridPoint& point, const std::string& path);

// The experiment type named by a config's `type:` key (without planning the run).
std::string config_type_name(const ConfigDocument& document);

}  // namespace embpriv
