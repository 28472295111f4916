#pragma once
// `embpriv run` on an engine experiment type: plans the run, then runs the grid rows of this
// shard that the results file does not hold yet, writing the file atomically as it goes, and
// draws the figures at the end. A failing row is recorded with its message and the others go
// on; SIGINT/SIGTERM stop after the current row with a complete, resumable file.
#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/engine/experiment_type.h"
#include "experiments/engine/sweep_grid.h"

namespace embpriv {

struct RunOptions {
  std::string config_path;
  std::string config_text;  // when set, the config itself (config_path then only names it)
  std::vector<std::string> overrides;  // key.path=value
  std::string out;                     // empty: the config's out (results/NAME.h5)
  Shard shard;
  bool resume = false;     // continue the file at `out`
  bool overwrite = false;  // replace the file at `out`
  bool dry_run = false;    // print the grid and a time estimate, run nothing
  bool plot = true;
  int threads = 0;  // 0: the config's threads
  double save_interval_seconds = 2.0;  // the file is rewritten at most this often (and at the end)
};

// Returns the exit code: 0 all rows ok, 1 some rows failed, 130 interrupted.
// Bad configs and options, an output path that cannot be written, and an output another process
// writes (OUT.lock, results/output_file.h) throw embpriv::Error before any row runs.
int run_experiment(const RunOptions& options, const ExperimentRegistry& types,
                   const MechanismRegistry& mechanisms, std::ostream& out);

// `embpriv merge OUT IN...`: joins the shard files of one run (results/merge.h) and, when the
// merged file is complete, fills the columns that need every row, as a single run would. OUT must
// not be an input, and an existing OUT is replaced only with `overwrite`; both are checked, and
// OUT locked, before any input is read.
ResultsTable merge_run_files(const std::string& out, const std::vector<std::string>& inputs,
                             const ExperimentRegistry& types, const MechanismRegistry& mechanisms,
                             bool overwrite = false);

// `embpriv plot FILE`: the figures of a results file, next to it. Returns the files written.
std::vector<std::string> plot_results_file(const std::string& path, const ExperimentRegistry& types,
                                           const MechanismRegistry& mechanisms);

}  // namespace embpriv
