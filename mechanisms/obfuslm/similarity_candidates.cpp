#include "mechanisms/obfuslm/similarity_candidates.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/running_top_k.h"

namespace embpriv {
namespace {

// numpy.quantile's "linear" value of one row of D (V cosines, so within [-1, 1] up to
// rounding): v[lower] + fraction (v[upper] - v[lower]) in the sorted row, upper = lower + 1
// (or V - 1). A histogram of the row over kBins bins finds the bins holding ranks lower and
// upper; only their values are sorted. Two passes over the row, which is in cache for the
// second. (ATen's kthvalue took 6x the time of the GEMM itself here, std::nth_element 1.4x.)
constexpr int kBins = 4096;

double row_quantile(const float* row, std::int64_t V, std::int64_t lower, std::int64_t upper, double fraction,
                    std::vector<std::int64_t>& counts, std::vector<float>& picked) {
  const auto bin_of = [](float v) {
    const int b = static_cast<int>((v + 1.0f) * (kBins / 2.0f));
    return b < 0 ? 0 : (b >= kBins ? kBins - 1 : b);
  };
  counts.assign(kBins, 0);
  for (std::int64_t j = 0; j < V; ++j) ++counts[static_cast<std::size_t>(bin_of(row[j]))];
  // The bins of ranks lower and upper, and the number of values below the first.
  std::int64_t before = 0;
  int first = 0;
  while (before + counts[static_cast<std::size_t>(first)] <= lower) before += counts[static_cast<std::size_t>(first++)];
  int last = first;
  std::int64_t through = before + counts[static_cast<std::size_t>(first)];
  while (through <= upper) through += counts[static_cast<std::size_t>(++last)];
  picked.clear();
  for (std::int64_t j = 0; j < V; ++j) {
    const int b = bin_of(row[j]);
    if (b >= first && b <= last) picked.push_back(row[j]);
  }
  std::sort(picked.begin(), picked.end());
  const double below = picked[static_cast<std::size_t>(lower - before)];
  const double above = picked[static_cast<std::size_t>(upper - before)];
  return below + fraction * (above - below);
}

}  // namespace

at::Tensor unit_rows(const at::Tensor& table) {
  EMBPRIV_CHECK(table.dim() == 2 && table.size(0) >= 1 && table.size(1) >= 1,
                "the embedding table must be [V, d] with V, d >= 1, got " << table.sizes());
  const at::Tensor t = table.to(at::kFloat).contiguous();
  // 2,048 rows at a time: the finiteness check and a double copy of the whole table would each
  // cost gigabytes more for V = 150,000, d = 4096. Norms are accumulated in double.
  at::Tensor out = at::empty_like(t);
  for (std::int64_t r0 = 0; r0 < t.size(0); r0 += 2048) {
    const at::Tensor rows = t.narrow(0, r0, std::min<std::int64_t>(2048, t.size(0) - r0));
    const at::Tensor bad = ~at::isfinite(rows).all(1);
    if (bad.any().item<bool>()) {
      const std::int64_t row = r0 + bad.nonzero()[0][0].item<std::int64_t>();
      throw Error("the embedding table holds NaN or Inf (first in row " + std::to_string(row) + ")");
    }
    const at::Tensor norms = rows.to(at::kDouble).norm(2, 1, true).clamp_min(1e-300);
    out.narrow(0, r0, rows.size(0)).copy_(rows.to(at::kDouble) / norms);
  }
  return out;
}

SimilarCandidates most_similar_rows(const at::Tensor& unit, const at::Tensor& queries,
                                    const at::Tensor& allowed, const at::Tensor& floor,
                                    const CandidateOptions& options, double quantile_beta,
                                    at::Tensor* quantiles) {
  const std::int64_t V = unit.size(0), Q = queries.numel();
  EMBPRIV_CHECK(options.candidates >= 1, "candidates must be >= 1, got " << options.candidates);
  EMBPRIV_CHECK(!allowed.defined() || (allowed.dim() == 1 && allowed.size(0) == V),
                "the allowed mask must be [" << V << "]");
  EMBPRIV_CHECK(!floor.defined() || floor.numel() == Q, "the floor must hold one value per query");
  const bool want_quantiles = quantiles != nullptr;
  EMBPRIV_CHECK(!want_quantiles || (quantile_beta >= 0 && quantile_beta <= 1),
                "the quantile must be in [0, 1], got " << quantile_beta);
  const std::int64_t C = std::min(options.candidates, V);
  const std::int64_t block =
      options.block > 0 ? options.block : std::max<std::int64_t>(1, (std::int64_t{1} << 25) / V);
  const at::Tensor query_ids = queries.to(at::kLong).reshape({-1}).contiguous();
  const float minus_infinity = -std::numeric_limits<float>::infinity();

  // numpy.quantile's default ("linear"): position p = beta (V - 1) in the sorted row,
  // value v[floor p] + (p - floor p) (v[floor p + 1] - v[floor p]).
  const double position = quantile_beta * static_cast<double>(V - 1);
  const std::int64_t lower = static_cast<std::int64_t>(std::floor(position));
  const double fraction = position - static_cast<double>(lower);

  const std::int64_t upper = std::min(lower + 1, V - 1);
  // The row filters, read once: allowed columns and each query's floor.
  const at::Tensor allowed_mask = allowed.defined() ? allowed.to(at::kBool).contiguous() : at::Tensor();
  const at::Tensor floors = floor.defined() ? floor.reshape({-1}).to(at::kFloat).contiguous() : at::Tensor();
  const bool* allowed_column = allowed_mask.defined() ? allowed_mask.data_ptr<bool>() : nullptr;
  const float* floor_of = floors.defined() ? floors.data_ptr<float>() : nullptr;
  const std::int64_t* query_id = query_ids.data_ptr<std::int64_t>();

  std::vector<at::Tensor> indices, scores, quantile_parts;
  for (std::int64_t q0 = 0; q0 < Q; q0 += block) {
    const std::int64_t n = std::min(block, Q - q0);
    const at::Tensor slab =
        at::matmul(unit.index_select(0, query_ids.narrow(0, q0, n)), unit.t()).contiguous();  // [n, V]: rows of D
    const float* d = slab.data_ptr<float>();
    at::Tensor top_scores = at::full({n, C}, minus_infinity, at::kFloat);
    at::Tensor top_indices = at::full({n, C}, -1, at::kLong);
    at::Tensor quantile_part = at::empty({want_quantiles ? n : 0}, at::kDouble);
    float* best = top_scores.data_ptr<float>();
    std::int64_t* best_column = top_indices.data_ptr<std::int64_t>();
    double* quantile_of = quantile_part.data_ptr<double>();
    // Each row of D once, while it is in cache: its quantile over all V cosines, then its C
    // best columns j != q that are allowed and >= the query's floor, offered in increasing j
    // (core/running_top_k.h: score descending, ties to the lower row, -1 / -inf padding).
    // Rows are independent: any split over threads gives the same lists.
    at::parallel_for(0, n, 1, [&](std::int64_t begin, std::int64_t end) {
      std::vector<std::int64_t> counts;
      std::vector<float> picked;
      for (std::int64_t r = begin; r < end; ++r) {
        const float* row = d + r * V;
        if (want_quantiles) quantile_of[r] = row_quantile(row, V, lower, upper, fraction, counts, picked);
        float* row_best = best + r * C;
        std::int64_t* row_column = best_column + r * C;
        const float row_floor = floor_of ? floor_of[q0 + r] : minus_infinity;
        const std::int64_t self = query_id[q0 + r];
        for (std::int64_t j = 0; j < V; ++j) {
          const float v = row[j];
          if (v > row_best[C - 1] && v >= row_floor && j != self && (!allowed_column || allowed_column[j])) {
            offer_top_k(row_best, row_column, C, v, j);
          }
        }
      }
    });
    if (want_quantiles) quantile_parts.push_back(quantile_part);
    indices.push_back(top_indices);
    scores.push_back(top_scores);
  }
  if (want_quantiles) *quantiles = Q ? at::cat(quantile_parts) : at::empty({0}, at::kDouble);
  if (Q == 0) return {at::empty({0, C}, at::kLong), at::empty({0, C}, at::kFloat)};
  return {at::cat(indices), at::cat(scores)};
}

}  // namespace embpriv
