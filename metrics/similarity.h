#pragma once
// Per-row utility statistics between an input batch x [N, d] and its perturbation y [N, d],
// computed in double, row by row, in row order.
#include <ATen/core/Tensor.h>

#include <vector>

namespace embpriv {

std::vector<double> row_cosines(const at::Tensor& x, const at::Tensor& y);
// Angles in radians, acos of the cosine clamped to [-1, 1].
std::vector<double> row_angles(const at::Tensor& x, const at::Tensor& y);
std::vector<double> row_norms(const at::Tensor& x);
// ||y_i|| / ||x_i||.
std::vector<double> row_norm_ratios(const at::Tensor& x, const at::Tensor& y);
// a_i . b_i.
std::vector<double> row_dots(const at::Tensor& a, const at::Tensor& b);

}  // namespace embpriv
