// embpriv.nearest_rows: the KNN inversion attack's search (attacks/nearest_rows.h).
#include <torch/csrc/utils/pybind.h>

#include <ATen/ATen.h>

#include <cmath>
#include <limits>
#include <string>

#include "attacks/nearest_rows.h"
#include "core/error.h"
#include "python/bindings.h"
#include "python/python_values.h"

namespace py = pybind11;

namespace embpriv::python {
namespace {

// The search runs in float32 (attacks/nearest_rows.h), where a row's squared norm overflows
// beyond |x| ~ 1.8e19 and underflows below ~1e-19. Cosine does not depend on a row's scale, so a
// row whose largest |value| is outside [2^-60, 2^60] is first scaled by a power of two toward 1
// (exact in binary floating point): the scores are those of the exact rows. Other rows are passed
// unchanged.
at::Tensor scaled_for_cosine(const at::Tensor& rows) {
  if (rows.numel() == 0) return rows;
  // max |x| per row without a temporary the size of `rows`.
  const at::Tensor largest = at::maximum(at::amax(rows, 1), -at::amin(rows, 1)).to(at::kDouble);
  const at::Tensor outside =
      at::isfinite(largest).logical_and((largest > std::ldexp(1.0, 60)).logical_or(
          (largest > 0).logical_and(largest < std::ldexp(1.0, -60))));
  if (!outside.any().item<bool>()) return rows;
  // 2^-floor(log2 largest) for those rows, 1 for the others.
  const at::Tensor scale = at::where(outside, at::exp2(-at::floor(at::log2(largest))), at::ones_like(largest));
  return (rows.to(at::kDouble) * scale.unsqueeze(1)).to(rows.scalar_type());
}

// A float64 value beyond float32's range would become inf in the search.
void check_fits_float32(const at::Tensor& rows, const char* what) {
  if (rows.dim() != 2 || rows.scalar_type() != at::kDouble) return;
  const at::Tensor beyond = at::isfinite(rows).logical_and(rows.abs() > std::numeric_limits<float>::max());
  if (!beyond.any().item<bool>()) return;
  const at::Tensor where = beyond.nonzero();
  EMBPRIV_CHECK(false, "knn: " << what << " row " << where[0][0].item<std::int64_t>() << " holds "
                               << rows[where[0][0]][where[0][1]].item<double>()
                               << ", beyond float32's range, in which the search runs (metric 'l2'; "
                                  "'cosine' scales such rows)");
}

Neighbours search(const at::Tensor& queries, const at::Tensor& table, std::int64_t k, const std::string& metric,
                  const py::object& excluded) {
  KnnOptions options;
  options.metric = parse_knn_metric(metric);
  options.k = k;
  if (!excluded.is_none()) options.excluded = tensor_argument(excluded, "excluded").clone();
  if (queries.dim() == 2 && table.dim() == 2) {
    EMBPRIV_CHECK(queries.is_floating_point() && table.is_floating_point(),
                  "knn: queries and table must be floating point, got " << queries.dtype() << " and " << table.dtype());
    EMBPRIV_CHECK(table.size(1) >= 1 && queries.size(1) >= 1,
                  "knn: the dimension d must be >= 1, got " << queries.sizes() << " and " << table.sizes());
  }
  // The arguments are read in place once the GIL is released: another thread must not change
  // them during the call (docs/python.md), as for torch's own functions.
  at::Tensor q = queries, t = table;
  if (options.metric == KnnMetric::cosine && queries.dim() == 2 && table.dim() == 2) {
    q = scaled_for_cosine(queries);
    t = scaled_for_cosine(table);
  } else {
    check_fits_float32(queries, "queries");
    check_fits_float32(table, "table");
  }
  py::gil_scoped_release unlocked;
  Neighbours found = nearest_rows(q, t, options);
  // -||q - t||^2 beyond float32's range is -inf: the order of such rows would be arbitrary.
  EMBPRIV_CHECK(at::isfinite(found.scores).all().item<bool>(),
                "knn: a score is not finite in float32 (with metric 'l2' a squared distance beyond 3.4e38); "
                "scale the rows down or use metric='cosine'");
  return found;
}

}  // namespace

void bind_attacks(py::module_& m) {
  m.def(
      "nearest_rows",
      [](const at::Tensor& queries, const at::Tensor& table, std::int64_t k, const std::string& metric,
         const py::object& excluded) {
        const Neighbours found = search(queries, table, k, metric, excluded);
        return py::make_tuple(found.indices, found.scores);
      },
      py::arg("queries"), py::arg("table"), py::arg("k") = 5, py::kw_only(), py::arg("metric") = "cosine",
      py::arg("excluded") = py::none(),
      "The k nearest rows of table [V, d] for each query [N, d]: (indices [N, k] int64, scores "
      "[N, k]: cosine, or -||q - t||^2 for metric='l2'), best first. excluded: bool [V], rows "
      "never returned. The search runs in float32; for cosine, rows of any finite scale give the "
      "exact rows' scores; a float64 value or an l2 distance beyond float32's range raises ValueError.");
}

}  // namespace embpriv::python
