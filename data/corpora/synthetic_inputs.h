#pragma once
// Seeded synthetic inputs for the theory checks: random directions with random norms.
#include <ATen/core/Tensor.h>

#include <cstdint>

namespace embpriv {

// x [n, d]: directions uniform on S^{d-1}, norms log-uniform in [norm_lo, norm_hi]. Row i is
// drawn from Rng(seed, first_row + i) alone, so a large batch can be made in chunks.
at::Tensor random_directions(std::int64_t n, std::int64_t d, double norm_lo, double norm_hi,
                             std::uint64_t seed, std::int64_t first_row = 0);

// A partner for every row of x: same-size batch whose row i has a cosine with x_i drawn
// uniformly from [cos_lo, cos_hi] and its own random norm in [norm_lo, norm_hi], so that
// x1 . x2 is far from 0 and Thm 5.3's factor is measurable.
at::Tensor correlated_partners(const at::Tensor& x, double cos_lo, double cos_hi, double norm_lo,
                               double norm_hi, std::uint64_t seed);

}  // namespace embpriv
