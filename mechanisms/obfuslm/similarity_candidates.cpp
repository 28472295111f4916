#include "mechanisms/obfuslm/similarity_candidates.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"

namespace embpriv {
namespace {

// numpy.quantile's "linear" value of each row of slab [n, V] (cosines, so within [-1, 1] up to
// rounding): v[lower] + fraction (v[lower + 1] - v[lower]) in the sorted row. A histogram of
// the row over 4096 bins finds the bins holding ranks lower and lower + 1; only their values
// are sorted. Two passes over the row; rows in parallel. (ATen's kthvalue took 6x the time of
// the GEMM itself here, std::nth_element 1.4x.)
at::Tensor row_quantiles(const at::Tensor& slab, std::int64_t lower, double fraction) {
  constexpr int kBins = 4096;
  const std::int64_t n = slab.size(0), V = slab.size(1);
  at::Tensor out = at::empty({n}, at::kDouble);
  const at::Tensor rows = slab.contiguous();
  const float* data = rows.data_ptr<float>();
  double* result = out.data_ptr<double>();
  const auto bin_of = [](float v) {
    const int b = static_cast<int>((v + 1.0f) * (kBins / 2.0f));
    return b < 0 ? 0 : (b >= kBins ? kBins - 1 : b);
  };
  const std::int64_t upper = std::min(lower + 1, V - 1);
  at::parallel_for(0, n, 1, [&](std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t> counts(kBins);
    std::vector<float> picked;
    for (std::int64_t r = begin; r < end; ++r) {
      const float* row = data + r * V;
      std::fill(counts.begin(), counts.end(), 0);
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
      result[r] = below + fraction * (above - below);
    }
  });
  return out;
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
  const at::Tensor query_ids = queries.to(at::kLong).reshape({-1});
  const float minus_infinity = -std::numeric_limits<float>::infinity();

  // numpy.quantile's default ("linear"): position p = beta (V - 1) in the sorted row,
  // value v[floor p] + (p - floor p) (v[floor p + 1] - v[floor p]).
  const double position = quantile_beta * static_cast<double>(V - 1);
  const std::int64_t lower = static_cast<std::int64_t>(std::floor(position));
  const double fraction = position - static_cast<double>(lower);

  std::vector<at::Tensor> indices, scores, quantile_parts;
  for (std::int64_t q0 = 0; q0 < Q; q0 += block) {
    const std::int64_t n = std::min(block, Q - q0);
    const at::Tensor ids = query_ids.narrow(0, q0, n);
    at::Tensor slab = at::matmul(unit.index_select(0, ids), unit.t());  // [n, V]: rows of D
    if (want_quantiles) {
      quantile_parts.push_back(row_quantiles(slab, lower, fraction));
    }
    slab.scatter_(1, ids.unsqueeze(1), minus_infinity);  // j != i
    if (allowed.defined()) slab.masked_fill_(~allowed.to(at::kBool).unsqueeze(0), minus_infinity);
    if (floor.defined()) {
      const at::Tensor f = floor.reshape({-1}).narrow(0, q0, n).to(at::kFloat).unsqueeze(1);
      slab.masked_fill_(slab < f, minus_infinity);
    }
    auto [top_scores, top_indices] = slab.topk(C, 1);
    // A fixed order whatever topk did with ties: score descending, then row index ascending.
    auto [by_index, index_order] = top_indices.sort(1);
    const at::Tensor scores_by_index = top_scores.gather(1, index_order);
    auto [sorted_scores, score_order] = scores_by_index.sort(/*stable=*/true, 1, /*descending=*/true);
    at::Tensor sorted_indices = by_index.gather(1, score_order);
    sorted_indices.masked_fill_(sorted_scores == minus_infinity, -1);
    indices.push_back(sorted_indices);
    scores.push_back(sorted_scores);
  }
  if (want_quantiles) *quantiles = Q ? at::cat(quantile_parts) : at::empty({0}, at::kDouble);
  if (Q == 0) return {at::empty({0, C}, at::kLong), at::empty({0, C}, at::kFloat)};
  return {at::cat(indices), at::cat(scores)};
}

}  // namespace embpriv
