#include "experiments/types/bounds/bounds_job.h"

#include <ostream>

#include "core/log.h"
#include "experiments/types/bounds/bounds.h"
#include "experiments/types/bounds/bounds_plot.h"
#include "experiments/engine/provenance.h"
#include "experiments/results/results_table.h"

namespace embpriv {

int run_bounds_job(const BoundsConfig& config, const MechanismRegistry& registry,
                   std::ostream& out) {
  config.validate();
  const std::vector<CheckRow> rows = run_bounds(config, registry);
  print_bounds_table(out, rows);
  ResultsTable table = bounds_table(rows);
  table.attributes["config"] = config.to_yaml();
  table.attributes["git_commit"] = git_commit();
  table.attributes["experiment"] = "bounds";
  write_results_h5(config.out, table);
  info("wrote " + config.out);
  if (!config.plot.empty()) {
    plot_bounds_cosines(rows, config.plot);
    info("wrote " + config.plot);
  }
  for (const CheckRow& r : rows) {
    if (!r.pass) return 1;
  }
  return 0;
}

}  // namespace embpriv
