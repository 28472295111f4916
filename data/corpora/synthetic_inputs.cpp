#include "data/corpora/synthetic_inputs.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

#include "core/rng.h"

namespace embpriv {
namespace {

double log_uniform(Rng& rng, double lo, double hi) {
  return lo * std::exp(rng.uniform() * std::log(hi / lo));
}

}  // namespace

at::Tensor random_directions(std::int64_t n, std::int64_t d, double norm_lo, double norm_hi,
                             std::uint64_t seed, std::int64_t first_row) {
  at::Tensor x = at::empty({n, d}, at::kFloat);
  float* data = x.data_ptr<float>();
  std::vector<double> v(static_cast<std::size_t>(d));
  for (std::int64_t i = 0; i < n; ++i) {
    Rng rng(seed, static_cast<std::uint64_t>(first_row + i));
    double squared = 0;
    for (auto& value : v) {
      value = rng.normal();
      squared += value * value;
    }
    const double scale = log_uniform(rng, norm_lo, norm_hi) / std::sqrt(squared);
    for (std::int64_t j = 0; j < d; ++j) data[i * d + j] = static_cast<float>(scale * v[j]);
  }
  return x;
}

at::Tensor correlated_partners(const at::Tensor& x, double cos_lo, double cos_hi, double norm_lo,
                               double norm_hi, std::uint64_t seed) {
  const std::int64_t n = x.size(0), d = x.size(1);
  const at::Tensor input = x.to(at::kFloat).contiguous();
  const float* in = input.data_ptr<float>();
  at::Tensor out = at::empty({n, d}, at::kFloat);
  float* data = out.data_ptr<float>();
  std::vector<double> v(static_cast<std::size_t>(d));
  for (std::int64_t i = 0; i < n; ++i) {
    Rng rng(seed, static_cast<std::uint64_t>(i));
    const float* xi = in + i * d;
    double xx = 0, xv = 0, vv = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      v[j] = rng.normal();
      xx += static_cast<double>(xi[j]) * xi[j];
      xv += v[j] * xi[j];
    }
    // Gram-Schmidt: u = unit part of v orthogonal to x.
    for (std::int64_t j = 0; j < d; ++j) {
      v[j] -= xv / xx * xi[j];
      vv += v[j] * v[j];
    }
    const double c = cos_lo + (cos_hi - cos_lo) * rng.uniform();
    const double r = log_uniform(rng, norm_lo, norm_hi);
    const double along = r * c / std::sqrt(xx), across = r * std::sqrt(1 - c * c) / std::sqrt(vv);
    for (std::int64_t j = 0; j < d; ++j) {
      data[i * d + j] = static_cast<float>(along * xi[j] + across * v[j]);
    }
  }
  return out;
}

}  // namespace embpriv
