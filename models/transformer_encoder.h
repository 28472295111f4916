#pragma once
// The text classifier's Transformer encoder (Vaswani et al. 2017, sec. 3.1: post-norm layers of
// self-attention and a ReLU feed-forward network, each followed by "add & norm"), run so that
// training gives the same numbers whatever LibTorch's thread count (docs/performance.md,
// "One result per seed").
//
// LibTorch 1.13's layer norm backward is the one op of this network whose result depends on the
// thread count: it sums dL/dgamma and dL/dbeta over the rows in one partial sum per thread and
// adds the partial sums at the end, so 1 and 2 threads round differently, and training, which
// is chaotic, turns the last-bit difference into a different model. Everything else the
// encoder runs (GEMMs, softmax, row-wise kernels, reductions over a dimension that is kept in
// the output) splits the work among threads without splitting any sum.
#include <ATen/core/Tensor.h>
#include <torch/nn/modules/transformercoder.h>

namespace embpriv {

// Layer normalisation over the last dimension (Ba, Kiros & Hinton 2016, eq. 4):
// y = (x - mean) / sqrt(var + eps) * weight + bias, float. y and dL/dx are LibTorch's kernels
// (each row on its own, in one thread); dL/dweight and dL/dbias are summed over the rows in
// row order, the columns split among the threads, which gives the same bits at every thread
// count and the bits of LibTorch's kernel at one thread.
at::Tensor thread_invariant_layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                                       double eps);

// torch::nn::TransformerEncoder's forward (post-norm layers, LibTorch 1.13's
// TransformerEncoderLayerImpl::forward step by step, the same parameters) with every layer norm
// replaced by thread_invariant_layer_norm. src [L, B, d]; key_padding_mask [B, L], true where
// padding. The encoder must have no final norm and ReLU layers (what the classifier builds).
at::Tensor thread_invariant_encoder_forward(torch::nn::TransformerEncoder& encoder, const at::Tensor& src,
                                            const at::Tensor& key_padding_mask);

}  // namespace embpriv
