#pragma once
// The float32 arithmetic of the Hugging Face models (models/hf_encoder_model.h,
// models/hf_decoder_model.h): weights stored in float32, bf16 or float16 are used as float32.
#include <ATen/ATen.h>

namespace embpriv {

// A weight as float32 for this use (no copy when the file held float32).
inline at::Tensor as_float32(const at::Tensor& weight) { return weight.to(at::kFloat); }

// y = x W^T + b (torch.nn.functional.linear), b optional. The bias is added in place: the same
// bits as x W^T + b without a second output of the layer's size (matmul's backward does not read
// its output).
inline at::Tensor float32_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  at::Tensor y = at::matmul(x, as_float32(weight).t());
  return bias.defined() ? y.add_(as_float32(bias)) : y;
}

}  // namespace embpriv
