#pragma once
// The arithmetic of the Hugging Face models (models/hf_encoder_model.h, models/hf_decoder_model.h):
// weights stored in float32, bf16 or float16 are used in the dtype of the activations they
// multiply, float32 unless a decoder computes in bfloat16 (HfDecoderModel's compute dtype).
#include <ATen/ATen.h>

namespace embpriv {

// A weight as float32 for this use (no copy when the file held float32).
inline at::Tensor as_float32(const at::Tensor& weight) { return weight.to(at::kFloat); }

// y = x W^T + b (torch.nn.functional.linear) in x's dtype, b optional; W and b are converted to
// it for this use (no copy when the file holds that dtype). In float32 the bias is added in place:
// the same bits as x W^T + b without a second output of the layer's size (matmul's backward does
// not read its output). In bf16 it is torch.nn.functional.linear itself, whose GEMM adds the bias
// before rounding to bf16 (addmm), as transformers' bf16 layers do; added after, it would be
// rounded twice.
inline at::Tensor linear_layer(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  const at::Tensor w = weight.to(x.scalar_type());
  if (x.scalar_type() != at::kFloat) return at::linear(x, w, bias.defined() ? bias.to(x.scalar_type()) : bias);
  at::Tensor y = at::matmul(x, w.t());
  return bias.defined() ? y.add_(bias.to(x.scalar_type())) : y;
}

// linear_layer() of float32 activations (the encoders compute in float32 only).
inline at::Tensor float32_linear(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  return linear_layer(x.to(at::kFloat), weight, bias);
}

}  // namespace embpriv
