#include "metrics/similarity.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace embpriv {
namespace {

// A batch [N, d] (any floating dtype, any device) as a contiguous CPU float32 tensor. Every
// statistic below is then accumulated in double, row by row and within a row in index order,
// by a plain serial loop: no torch reduction, so the results are bit-identical whatever the
// thread count or the device the batch came from.
at::Tensor cpu_float_rows(const at::Tensor& t, const char* what) {
  EMBPRIV_CHECK(t.defined() && t.dim() == 2,
                what << " must be a 2-D batch [N, d], got "
                     << (t.defined() ? t.sizes() : at::IntArrayRef{}));
  EMBPRIV_CHECK(t.is_floating_point(), what << " must be floating point, got " << t.dtype());
  EMBPRIV_CHECK(t.size(1) >= 1, what << " must have at least one column, got " << t.sizes());
  return t.to(at::kCPU, at::kFloat).contiguous();
}

void check_same_shape(const at::Tensor& a, const at::Tensor& b, const char* name_a,
                      const char* name_b) {
  EMBPRIV_CHECK(a.sizes() == b.sizes(), name_a << " and " << name_b
                                               << " must have the same shape, got " << a.sizes()
                                               << " and " << b.sizes());
}

// Per-row sums of one pass over a (and b): ||a_i||^2, ||b_i||^2, a_i . b_i, in double.
struct RowSums {
  double aa = 0, bb = 0, ab = 0;
};

RowSums row_sums(const float* a, const float* b, std::int64_t d, std::int64_t row,
                 const char* name_a, const char* name_b) {
  RowSums s;
  for (std::int64_t j = 0; j < d; ++j) {
    const double x = a[j];
    const double y = b[j];
    EMBPRIV_CHECK(std::isfinite(x) && std::isfinite(y),
                  "row " << row << " has a non-finite value at column " << j << " (" << name_a
                         << " = " << x << ", " << name_b << " = " << y << ")");
    s.aa += x * x;
    s.bb += y * y;
    s.ab += x * y;
  }
  return s;
}

template <class RowFunction>
std::vector<double> pairwise(const at::Tensor& a_in, const at::Tensor& b_in, const char* name_a,
                             const char* name_b, RowFunction f) {
  const at::Tensor a = cpu_float_rows(a_in, name_a);
  const at::Tensor b = cpu_float_rows(b_in, name_b);
  check_same_shape(a, b, name_a, name_b);
  const std::int64_t rows = a.size(0);
  const std::int64_t d = a.size(1);
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  std::vector<double> out(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i) {
    out[static_cast<std::size_t>(i)] =
        f(row_sums(pa + i * d, pb + i * d, d, i, name_a, name_b), i);
  }
  return out;
}

double cosine_of(const RowSums& s, std::int64_t row) {
  EMBPRIV_CHECK(s.aa > 0 && s.bb > 0, "row " << row
                                             << " has a zero vector: the cosine is undefined ("
                                             << "||x||^2 = " << s.aa << ", ||y||^2 = " << s.bb
                                             << ")");
  return s.ab / std::sqrt(s.aa * s.bb);
}

}  // namespace

std::vector<double> row_cosines(const at::Tensor& x, const at::Tensor& y) {
  return pairwise(x, y, "x", "y", cosine_of);
}

std::vector<double> row_angles(const at::Tensor& x, const at::Tensor& y) {
  return pairwise(x, y, "x", "y", [](const RowSums& s, std::int64_t row) {
    // Rounding can put the cosine of (anti)parallel rows a few ulps outside [-1, 1].
    return std::acos(std::clamp(cosine_of(s, row), -1.0, 1.0));
  });
}

std::vector<double> row_norms(const at::Tensor& x) {
  return pairwise(x, x, "x", "x",
                  [](const RowSums& s, std::int64_t) { return std::sqrt(s.aa); });
}

std::vector<double> row_norm_ratios(const at::Tensor& x, const at::Tensor& y) {
  return pairwise(x, y, "x", "y", [](const RowSums& s, std::int64_t row) {
    EMBPRIV_CHECK(s.aa > 0, "row " << row << " of x is a zero vector: ||y|| / ||x|| is undefined");
    return std::sqrt(s.bb / s.aa);
  });
}

std::vector<double> row_dots(const at::Tensor& a, const at::Tensor& b) {
  return pairwise(a, b, "a", "b", [](const RowSums& s, std::int64_t) { return s.ab; });
}

}  // namespace embpriv
