#pragma once
// Small per-row helpers shared by the row kernels. Sums run in double with four partial sums
// (so the additions do not wait on each other) combined in a fixed order: a row's result is the
// same whatever thread computes it.
#include <cmath>
#include <cstdint>

#include "core/rng.h"

namespace embpriv::row {

// sum_j f(j) over j < d with four interleaved partial sums.
template <class Term>
inline double sum(std::int64_t d, Term term) {
  double s[4] = {0, 0, 0, 0};
  std::int64_t j = 0;
  for (; j + 4 <= d; j += 4) {
    for (int k = 0; k < 4; ++k) s[k] += term(j + k);
  }
  for (; j < d; ++j) s[0] += term(j);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

inline double squared_norm(const float* x, std::int64_t d) {
  return sum(d, [x](std::int64_t j) { return static_cast<double>(x[j]) * x[j]; });
}

inline double l1_norm(const float* x, std::int64_t d) {
  return sum(d, [x](std::int64_t j) { return std::fabs(static_cast<double>(x[j])); });
}

// A random unit tangent at mu = x / ||x||: n ~ N(0, I_d) is drawn into v, and
// n_perp = n - (n . mu) mu, normalised, is uniform on the unit sphere of the orthogonal
// complement of mu (vMF paper, Algorithm 1, step 2; Lemma 3.2). It is kept implicit, as
// (v, along, perp_norm), so that a combination of mu and the tangent is one pass over the row.
struct Tangent {
  double r;          // ||x||
  double along;      // n . mu
  double perp_norm;  // ||n_perp|| = sqrt(||n||^2 - (n . mu)^2) (Pythagoras; ||n||^2 ~ d)
};

inline Tangent draw_tangent(const float* x, std::int64_t d, Rng& rng, double* v) {
  // One pass: each normal is used while it is still in a register.
  double s[3][4] = {};
  std::int64_t j = 0;
  for (; j + 4 <= d; j += 4) {
    for (int k = 0; k < 4; ++k) {
      const double xj = x[j + k], vj = v[j + k] = rng.normal();
      s[0][k] += xj * xj;
      s[1][k] += vj * xj;
      s[2][k] += vj * vj;
    }
  }
  for (; j < d; ++j) {
    const double xj = x[j], vj = v[j] = rng.normal();
    s[0][0] += xj * xj;
    s[1][0] += vj * xj;
    s[2][0] += vj * vj;
  }
  auto total = [](const double* p) { return (p[0] + p[1]) + (p[2] + p[3]); };
  const double r = std::sqrt(total(s[0]));
  const double along = total(s[1]) / r;
  return {r, along, std::sqrt(total(s[2]) - along * along)};
}

// y = a_mu * mu + a_tangent * n_perp / ||n_perp||, with mu = x / r and n_perp = v - along mu:
// y_j = (a_mu - a_tangent along / ||n_perp||) x_j / r + (a_tangent / ||n_perp||) v_j.
inline void write_combination(const float* x, const double* v, const Tangent& t, double a_mu,
                              double a_tangent, std::int64_t d, float* y) {
  const double tangent_scale = a_tangent / t.perp_norm;
  const double x_scale = (a_mu - tangent_scale * t.along) / t.r;
  for (std::int64_t j = 0; j < d; ++j) {
    y[j] = static_cast<float>(x_scale * x[j] + tangent_scale * v[j]);
  }
}

}  // namespace embpriv::row
