#include "attacks/distinguishing.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "metrics/intervals.h"

namespace embpriv {
namespace {

double log_ratio(double numerator, double denominator) {
  if (numerator <= 0) return -std::numeric_limits<double>::infinity();
  if (denominator <= 0) return std::numeric_limits<double>::infinity();
  return std::log(numerator / denominator);
}

}  // namespace

EmpiricalEpsilon empirical_epsilon(std::int64_t hits_a, std::int64_t trials_a, std::int64_t hits_b,
                                   std::int64_t trials_b, double confidence) {
  EMBPRIV_CHECK(trials_a >= 1 && trials_b >= 1 && hits_a >= 0 && hits_b >= 0 && hits_a <= trials_a &&
                    hits_b <= trials_b,
                "distinguishing: counts must satisfy 0 <= hits <= trials, trials >= 1");
  EMBPRIV_CHECK(confidence > 0 && confidence < 1, "distinguishing: confidence must be in (0, 1)");
  const double pa = static_cast<double>(hits_a) / static_cast<double>(trials_a);
  const double pb = static_cast<double>(hits_b) / static_cast<double>(trials_b);
  EmpiricalEpsilon out;
  out.estimate = std::max({0.0, log_ratio(pa, pb), log_ratio(1 - pb, 1 - pa)});
  // Both tails of the game: O, and its complement with the roles swapped. Each bound uses the
  // lower end of the numerator's interval and the upper end of the denominator's.
  const Interval a = clopper_pearson(hits_a, trials_a, confidence);
  const Interval b = clopper_pearson(hits_b, trials_b, confidence);
  out.lower_bound = std::max({0.0, log_ratio(a.lo, b.hi), log_ratio(1 - b.hi, 1 - a.lo)});
  return out;
}

std::int64_t count_nearer_to_first(const at::Tensor& outputs, const at::Tensor& a, const at::Tensor& b) {
  EMBPRIV_CHECK(outputs.dim() == 2 && a.numel() == outputs.size(1) && b.numel() == outputs.size(1),
                "distinguishing: outputs must be [R, d] and both secrets [d], got " << outputs.sizes() << ", "
                                                                                   << a.sizes() << ", " << b.sizes());
  const at::Tensor o = outputs.to(at::kDouble);
  const at::Tensor unit_o = o / o.norm(2, 1, true).clamp_min(1e-300);
  const auto unit = [](const at::Tensor& v) {
    const at::Tensor x = v.to(at::kDouble).reshape({-1});
    return x / x.norm().clamp_min(1e-300);
  };
  return (at::matmul(unit_o, unit(a)) > at::matmul(unit_o, unit(b))).sum().item<std::int64_t>();
}

}  // namespace embpriv
