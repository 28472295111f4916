// embpriv.nearest_rows: the KNN inversion attack's search (attacks/nearest_rows.h).
#include <torch/csrc/utils/pybind.h>

#include <string>

#include "attacks/nearest_rows.h"
#include "python/bindings.h"

namespace py = pybind11;

namespace embpriv::python {

void bind_attacks(py::module_& m) {
  m.def(
      "nearest_rows",
      [](const at::Tensor& queries, const at::Tensor& table, std::int64_t k, const std::string& metric,
         const py::object& excluded) {
        KnnOptions options;
        options.metric = parse_knn_metric(metric);
        options.k = k;
        if (!excluded.is_none()) options.excluded = excluded.cast<at::Tensor>();
        Neighbours found;
        {
          py::gil_scoped_release unlocked;
          found = nearest_rows(queries, table, options);
        }
        return py::make_tuple(found.indices, found.scores);
      },
      py::arg("queries"), py::arg("table"), py::arg("k") = 5, py::kw_only(), py::arg("metric") = "cosine",
      py::arg("excluded") = py::none(),
      "The k nearest rows of table [V, d] for each query [N, d]: (indices [N, k] int64, scores "
      "[N, k]: cosine, or -||q - t||^2 for metric='l2'), best first. excluded: bool [V], rows "
      "never returned.");
}

}  // namespace embpriv::python
