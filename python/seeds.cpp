// Seeds and seeded inputs (core/rng.h, data/corpora/synthetic_inputs.h): what a notebook needs to redo
// one grid point of a run, row for row.
#include <torch/csrc/utils/pybind.h>

#include <limits>
#include <string>

#include "core/error.h"
#include "core/params.h"
#include "core/rng.h"
#include "data/corpora/synthetic_inputs.h"
#include "experiments/engine/config_document.h"
#include "python/bindings.h"
#include "python/python_values.h"

namespace py = pybind11;

namespace embpriv::python {

void bind_seeds(py::module_& m) {
  m.def("derive_seed", &derive_seed, py::arg("run_seed"), py::arg("point"), py::arg("purpose"),
        "The seed of one purpose ('mechanism', 'inputs', ...) at one grid point of a run");
  m.def("fnv1a64", &fnv1a64, py::arg("text"),
        "64-bit FNV-1a of a string: the point of derive_seed is fnv1a64 of the grid point's key");
  m.def(
      "random_directions",
      [](std::int64_t n, std::int64_t d, double norm_min, double norm_max, const py::object& seed_object,
         std::int64_t first_row) {
        const std::uint64_t seed = seed_argument(seed_object, "seed");
        // The checks of the type perturbation's data keys (data.norm_min > 0, data.norm_max >=
        // data.norm_min), and a norm float32 can hold.
        require_at_least("n", n, 0);
        require_at_least("d", d, 1);
        require_at_least("first_row", first_row, 0);
        require_positive("norm_min", norm_min);
        require_positive("norm_max", norm_max);
        EMBPRIV_CHECK(norm_max >= norm_min, "norm_max must be >= norm_min, got " << norm_max << " < " << norm_min);
        EMBPRIV_CHECK(norm_max <= std::numeric_limits<float>::max(),
                      "norm_max must be <= " << std::numeric_limits<float>::max()
                                             << " (float32's largest value), got " << norm_max);
        py::gil_scoped_release unlocked;
        return random_directions(n, d, norm_min, norm_max, seed, first_row);
      },
      py::arg("n"), py::arg("d"), py::arg("norm_min"), py::arg("norm_max"), py::kw_only(), py::arg("seed"),
      py::arg("first_row") = 0,
      "x [n, d] float32: directions uniform on the sphere, norms log-uniform in [norm_min, "
      "norm_max], row i from the generator (seed, first_row + i) (the inputs of type perturbation)");
  m.def(
      "flow_yaml",
      [](const std::string& yaml_text, const std::string& path) {
        YAML::Node root;
        try {
          root = YAML::Load(yaml_text);
        } catch (const YAML::Exception& e) {
          EMBPRIV_CHECK(false, "malformed YAML: " << e.what());
        }
        const YAML::Node node = path.empty() ? root : find_path(root, path);
        EMBPRIV_CHECK(node.IsDefined(), "no key '" << path << "' in the YAML text");
        return flow_yaml(node);
      },
      py::arg("yaml_text"), py::arg("path") = "",
      "One-line flow YAML of a document's key (dotted path), as the engine hashes it: the type "
      "perturbation's inputs are seeded by derive_seed(seed, fnv1a64(flow_yaml(config, 'data')), 'inputs')");
}

}  // namespace embpriv::python
