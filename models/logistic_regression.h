#pragma once
// A binary logistic-regression classifier in LibTorch (ATen), fitted by Newton's method
// (iteratively reweighted least squares) with an L2 penalty: exact, deterministic, and fast
// for the few hundred features of sentence embeddings.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>

namespace embpriv {

class LogisticRegression {
 public:
  // features [N, d] (float), labels [N] (0/1). Features are standardized with the training
  // mean and deviation. l2: the penalty on the weights (not the bias). The fit runs in float64
  // on `device` (the run's `device:`; MIA's shadow models), where the model then stays.
  static LogisticRegression fit(const at::Tensor& features, const at::Tensor& labels, double l2 = 1e-2,
                                std::int64_t max_iterations = 50, c10::Device device = c10::kCPU);
  at::Tensor probabilities(const at::Tensor& features) const;  // P(label = 1), [N], on the CPU
  // Share of rows whose thresholded probability (0.5) equals the label.
  double accuracy(const at::Tensor& features, const at::Tensor& labels) const;
  std::int64_t iterations() const { return iterations_; }

 private:
  at::Tensor mean_, scale_, weights_;  // weights_: [d + 1], the bias last
  std::int64_t iterations_ = 0;
};

}  // namespace embpriv
