#include "mechanisms/obfuslm/weight_synth.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "core/error.h"
#include "core/params.h"

namespace embpriv {

WeightNormalization parse_weight_normalization(std::string_view name) {
  if (name == "sum") return WeightNormalization::sum;
  if (name == "exp") return WeightNormalization::exp;
  throw Error("obfuslm: normalization must be sum or exp, got '" + std::string(name) + "'");
}

NoisySoftmax noisy_softmax(const std::vector<double>& sigma, double epsilon, Rng& rng) {
  EMBPRIV_CHECK(!sigma.empty(), "obfuslm: a cluster member needs at least its own similarity");
  const std::size_t m = sigma.size();
  NoisySoftmax out;
  // Softmax of eps sigma / 2, shifted by its maximum (the same values, no overflow).
  const double top = *std::max_element(sigma.begin(), sigma.end());
  out.u.resize(m);
  double total = 0;
  for (std::size_t j = 0; j < m; ++j) total += out.u[j] = std::exp(epsilon * (sigma[j] - top) / 2);
  for (double& value : out.u) value /= total;
  const auto [lowest, highest] = std::minmax_element(out.u.begin(), out.u.end());
  out.scale = (*highest - *lowest) / epsilon;  // Laplace(Delta_u / eps)
  out.noisy = out.u;
  if (out.scale > 0) {
    for (double& value : out.noisy) value += out.scale * rng.laplace();
  }
  return out;
}

std::vector<double> normalize_weights(std::vector<double> noisy, WeightNormalization normalization,
                                      double* denominator_out) {
  double denominator = 0;
  for (double value : noisy) denominator += normalization == WeightNormalization::sum ? value : std::exp(value);
  for (double& value : noisy) value /= denominator;
  if (denominator_out) *denominator_out = denominator;
  return noisy;
}

std::vector<double> synthesis_weights(const std::vector<double>& sigma, double epsilon,
                                      WeightNormalization normalization, Rng& rng, double* denominator) {
  return normalize_weights(noisy_softmax(sigma, epsilon, rng).noisy, normalization, denominator);
}

SynthesisedRows weight_synth(const at::Tensor& table, const at::Tensor& head, const Clusters& clusters,
                             const SynthesisOptions& options) {
  require_positive("obfuslm: epsilon", options.epsilon);
  EMBPRIV_CHECK(table.dim() == 2, "obfuslm: the embedding table must be [V, d], got " << table.sizes());
  const std::int64_t V = table.size(0);
  EMBPRIV_CHECK(static_cast<std::int64_t>(clusters.members.size()) == V,
                "obfuslm: the clusters hold " << clusters.members.size() << " rows, the table " << V);
  EMBPRIV_CHECK(!head.defined() || (head.dim() == 2 && head.size(0) == V),
                "obfuslm: the head must be [" << V << ", d'], got " << head.sizes());
  // Each cluster's rows are taken to double on their own: memory stays O(V d) in float.
  const at::Tensor x = table.to(at::kFloat).contiguous();
  const at::Tensor h = head.defined() ? head.to(at::kFloat).contiguous() : at::Tensor();
  at::Tensor out = at::empty_like(x), out_head = h.defined() ? at::empty_like(h) : at::Tensor();
  SynthesisStats stats;
  std::mutex stats_mutex;
  at::parallel_for(0, clusters.count(), 64, [&](std::int64_t begin, std::int64_t end) {
    SynthesisStats local;
    for (std::int64_t c = begin; c < end; ++c) {
      const std::vector<std::int64_t> S(clusters.members.begin() + clusters.offsets[c],
                                        clusters.members.begin() + clusters.offsets[c + 1]);
      const at::Tensor ids = at::tensor(S, at::kLong);
      const at::Tensor Y = x.index_select(0, ids).to(at::kDouble);
      const at::Tensor unit = Y / Y.norm(2, 1, true).clamp_min(1e-300);
      const at::Tensor sigma = at::matmul(unit, unit.t()).contiguous();
      const auto m = static_cast<std::int64_t>(S.size());
      at::Tensor W = at::empty({m, m}, at::kDouble);
      double* weights = W.data_ptr<double>();
      for (std::int64_t i = 0; i < m; ++i) {
        const double* row = sigma.data_ptr<double>() + i * m;
        Rng rng(options.seed, static_cast<std::uint64_t>(S[static_cast<std::size_t>(i)]));
        double denominator = 0;
        const std::vector<double> w = synthesis_weights(std::vector<double>(row, row + m), options.epsilon,
                                                        options.normalization, rng, &denominator);
        std::copy(w.begin(), w.end(), weights + i * m);
        for (double value : w) local.max_abs_weight = std::max(local.max_abs_weight, std::fabs(value));
        if (denominator < 0) ++local.negative_sums;
      }
      out.index_copy_(0, ids, at::matmul(W, Y).to(at::kFloat));
      if (h.defined()) out_head.index_copy_(0, ids, at::matmul(W, h.index_select(0, ids).to(at::kDouble)).to(at::kFloat));
    }
    std::lock_guard<std::mutex> lock(stats_mutex);
    stats.max_abs_weight = std::max(stats.max_abs_weight, local.max_abs_weight);
    stats.negative_sums += local.negative_sums;
  });
  return {out, out_head, stats};
}

}  // namespace embpriv
