// embpriv.run: `embpriv run CONFIG key=value ...` (experiments/engine/runner.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/log.h"
#include "experiments/engine/run_plan.h"
#include "experiments/engine/runner.h"
#include "experiments/results/results_table.h"
#include "experiments/types/registry.h"
#include "mechanisms/registry.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace embpriv::python {
namespace {

// The exit code of a run that SIGINT/SIGTERM stopped (experiments/engine/runner.h).
constexpr int kInterrupted = 130;

std::string run(const std::string& config_path, const std::vector<std::string>& overrides,
                const std::string& out, bool overwrite, bool resume, bool plot, int threads,
                const std::string& shard, bool quiet) {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  RunOptions options;
  options.config_path = config_path;
  options.overrides = overrides;
  options.out = out;
  options.overwrite = overwrite;
  options.resume = resume;
  options.plot = plot;
  options.threads = threads;
  options.shard = parse_shard(shard);
  std::ostringstream report;
  int code = 0;
  {
    py::gil_scoped_release unlocked;
    // The path the config names, when `out` is not given (planning reads only the config).
    if (options.out.empty()) {
      options.out = plan_run(config_path, overrides, default_experiment_registry(), mechanisms).out;
    }
    set_quiet(quiet);
    code = run_experiment(options, default_experiment_registry(), mechanisms, report);
  }
  if (!quiet) py::print(report.str(), py::arg("end") = "");
  if (code == kInterrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  return options.out;
}

}  // namespace

void bind_run(py::module_& m) {
  m.def(
      "check_results_file",
      [](const std::string& path) {
        py::gil_scoped_release unlocked;
        read_results_h5(path);
      },
      py::arg("path"),
      "Reads a results file as `embpriv info` does: its checksum fence (docs/reliability.md), then "
      "its /table; a damaged, truncated or foreign file raises ValueError with the command line's "
      "message. read_results calls it before h5py reads a byte.");
  m.def("run", &run, py::arg("config_path"), py::arg("overrides") = std::vector<std::string>{}, py::kw_only(),
        py::arg("out") = "", py::arg("overwrite") = false, py::arg("resume") = false, py::arg("plot") = false,
        py::arg("threads") = 0, py::arg("shard") = "1/1", py::arg("quiet") = true,
        "Runs a config as `embpriv run CONFIG OVERRIDES...` does and returns the results file's "
        "path (read it with read_results). Rows that fail are recorded with status 'failed' and "
        "their error; a bad config raises ValueError before any row runs.");
}

}  // namespace embpriv::python
