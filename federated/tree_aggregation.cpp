#include "federated/tree_aggregation.h"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"
#include "core/rng.h"

namespace embpriv {

std::int64_t tree_levels(std::int64_t rounds) {
  EMBPRIV_CHECK(rounds >= 1, "tree aggregation: rounds must be >= 1, got " << rounds);
  std::int64_t levels = 0;
  for (std::int64_t span = 1; span <= rounds; span *= 2) ++levels;
  return levels;
}

TreeAggregator::TreeAggregator(std::int64_t dimension, double sigma, std::uint64_t seed)
    : dimension_(dimension), sigma_(sigma), seed_(seed) {
  EMBPRIV_CHECK(dimension >= 1, "tree aggregation: dimension must be >= 1, got " << dimension);
  EMBPRIV_CHECK(sigma >= 0 && std::isfinite(sigma), "tree aggregation: sigma must be finite and >= 0, got " << sigma);
  sum_ = at::zeros({dimension}, at::kDouble);
}

at::Tensor TreeAggregator::node_noise(std::int64_t level, std::int64_t index) const {
  EMBPRIV_CHECK(level >= 0 && level < 62 && index >= 1, "tree aggregation: no node (" << level << ", " << index << ")");
  at::Tensor noise = at::empty({dimension_}, at::kDouble);
  // One generator per node: (level, index) packed into the row of the stream.
  Rng rng(derive_seed(seed_, static_cast<std::uint64_t>(level), "tree_aggregation.node"),
          static_cast<std::uint64_t>(index));
  double* n = noise.data_ptr<double>();
  for (std::int64_t i = 0; i < dimension_; ++i) n[i] = sigma_ * rng.normal();
  return noise;
}

at::Tensor TreeAggregator::add(const at::Tensor& vector) {
  EMBPRIV_CHECK(vector.dim() == 1 && vector.size(0) == dimension_,
                "tree aggregation: round vectors must be [" << dimension_ << "], got " << vector.sizes());
  EMBPRIV_CHECK(at::isfinite(vector).all().item<bool>(), "tree aggregation: the round's vector holds NaN or Inf");
  ++rounds_;
  sum_ += vector.to(at::kCPU, at::kDouble);
  at::Tensor noisy = sum_.clone();
  if (sigma_ == 0) return noisy;
  // [1, t] as dyadic intervals, longest first: one node per set bit h of t, covering the 2^h
  // rounds after those already covered (Kairouz et al. 2021, App. B.1).
  std::int64_t covered = 0;
  for (int h = 62; h >= 0; --h) {
    const std::int64_t span = std::int64_t{1} << h;
    if ((rounds_ & span) == 0) continue;
    noisy += node_noise(h, covered / span + 1);
    covered += span;
  }
  return noisy;
}

}  // namespace embpriv
