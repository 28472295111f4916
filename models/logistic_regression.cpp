#include "models/logistic_regression.h"

#include <ATen/ATen.h>

#include "platform/blas_threads.h"
#include "core/error.h"

namespace embpriv {
namespace {

at::Tensor with_bias(const at::Tensor& x) {
  return at::cat({x, at::ones({x.size(0), 1}, x.options())}, 1);
}

}  // namespace

LogisticRegression LogisticRegression::fit(const at::Tensor& features, const at::Tensor& labels,
                                           double l2, std::int64_t max_iterations, c10::Device device) {
  EMBPRIV_CHECK(features.dim() == 2 && labels.dim() == 1 && features.size(0) == labels.size(0),
                "logistic regression: features [N, d] and labels [N], got " << features.sizes()
                                                                            << " and " << labels.sizes());
  EMBPRIV_CHECK(features.size(0) >= 2, "logistic regression needs at least 2 rows");
  EMBPRIV_CHECK(l2 > 0, "logistic regression: l2 must be > 0, got " << l2);
  const at::Tensor x = features.to(device, at::kDouble);
  const at::Tensor y = labels.to(device, at::kDouble);
  EMBPRIV_CHECK(at::isfinite(x).all().item<bool>(), "logistic regression: features hold NaN or Inf");
  EMBPRIV_CHECK(((y == 0) | (y == 1)).all().item<bool>(), "logistic regression: labels must be 0 or 1");
  const SingleThreadedBlas small_gemms;  // d + 1 square systems: no BLAS pool beside LibTorch's
  LogisticRegression model;
  model.mean_ = x.mean(0);
  model.scale_ = x.std(0).clamp_min(1e-12);
  const at::Tensor design = with_bias((x - model.mean_) / model.scale_);
  const std::int64_t p = design.size(1);
  at::Tensor penalty = at::eye(p, x.options()) * l2 * static_cast<double>(x.size(0));
  penalty[p - 1][p - 1] = 0;  // the bias is not penalized
  at::Tensor w = at::zeros({p}, x.options());
  for (model.iterations_ = 1; model.iterations_ <= max_iterations; ++model.iterations_) {
    // Newton step on the penalized log-likelihood: (X^T S X + P) dw = X^T (y - mu) - P w.
    const at::Tensor mu = at::sigmoid(at::matmul(design, w));
    const at::Tensor s = (mu * (1 - mu)).clamp_min(1e-12);
    const at::Tensor hessian = at::matmul(design.t() * s, design) + penalty;
    const at::Tensor gradient = at::matmul(design.t(), y - mu) - at::matmul(penalty, w);
    const at::Tensor step = at::linalg_solve(hessian, gradient);
    w = w + step;
    if (step.abs().max().item<double>() < 1e-10) break;
  }
  model.weights_ = w;
  return model;
}

at::Tensor LogisticRegression::probabilities(const at::Tensor& features) const {
  EMBPRIV_CHECK(features.dim() == 2 && features.size(1) == mean_.size(0),
                "logistic regression: features must be [N, " << mean_.size(0) << "], got " << features.sizes());
  const at::Tensor x = (features.to(mean_.device(), at::kDouble) - mean_) / scale_;
  return at::sigmoid(at::matmul(with_bias(x), weights_)).cpu();
}

double LogisticRegression::accuracy(const at::Tensor& features, const at::Tensor& labels) const {
  const at::Tensor predicted = (probabilities(features) >= 0.5).to(at::kLong);
  return (predicted == labels.to(at::kCPU, at::kLong)).to(at::kDouble).mean().item<double>();
}

}  // namespace embpriv
