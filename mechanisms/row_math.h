#pragma once
// Small per-row helpers shared by the row kernels. Sums run in double, in index order, so a
// row's result is the same whatever thread computes it.
#include <cmath>
#include <cstdint>

#include "core/rng.h"

namespace embpriv::row {

inline double squared_norm(const float* x, std::int64_t d) {
  double s = 0;
  for (std::int64_t j = 0; j < d; ++j) s += static_cast<double>(x[j]) * x[j];
  return s;
}

inline double l1_norm(const float* x, std::int64_t d) {
  double s = 0;
  for (std::int64_t j = 0; j < d; ++j) s += std::fabs(static_cast<double>(x[j]));
  return s;
}

// Fills v with d standard normals and returns (v . x) / ||x|| given ||x||, plus ||v||^2.
struct NormalDraw {
  double along;         // the component of v along x / ||x||
  double squared_norm;  // ||v||^2
};
inline NormalDraw draw_normals(const float* x, double norm_x, std::int64_t d, Rng& rng,
                               double* v) {
  double dot = 0, sq = 0;
  for (std::int64_t j = 0; j < d; ++j) {
    const double n = rng.normal();
    v[j] = n;
    dot += n * x[j];
    sq += n * n;
  }
  return {dot / norm_x, sq};
}

// Turns the normal vector v into a unit vector orthogonal to mu = x / ||x||, given its
// component along mu and its squared norm (vMF paper, Algorithm 1, step 2; Lemma 3.2: the
// result is uniform on the unit sphere of the orthogonal complement).
inline void to_unit_tangent(const float* x, double norm_x, const NormalDraw& draw,
                            std::int64_t d, double* v) {
  // ||n_perp||^2 = ||n||^2 - (n . mu)^2 (Pythagoras; no cancellation: ||n||^2 ~ d).
  const double inv_perp = 1.0 / std::sqrt(draw.squared_norm - draw.along * draw.along);
  const double along_over_norm = draw.along / norm_x;
  for (std::int64_t j = 0; j < d; ++j) v[j] = (v[j] - along_over_norm * x[j]) * inv_perp;
}

}  // namespace embpriv::row
