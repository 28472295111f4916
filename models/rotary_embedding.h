#pragma once
// Rotary position embeddings as transformers applies them to Llama-family models
// (modeling_llama.py: apply_rotary_pos_emb with rotate_half; modeling_rope_utils.py for the
// inverse frequencies and the llama3 rule). Each head's vector is split into two HALVES
// (x1 = x[:d/2], x2 = x[d/2:]), unlike llama2.c's interleaved pairs; a converted checkpoint
// permutes the rows of q_proj and k_proj to match (models/llama2c_to_hf.h).
#include <ATen/core/Tensor.h>

#include <cstdint>

#include "models/hf_decoder_config.h"

namespace embpriv {

// inv_freq[j] = 1 / theta^(2j / head_dim), j < head_dim / 2, float32 as transformers computes
// it; with the llama3 rule, low frequencies (wavelength > original_max / low_freq_factor) are
// divided by factor, high ones (wavelength < original_max / high_freq_factor) kept, and those
// between blended with smooth = (original_max / wavelength - low) / (high - low):
// (1 - smooth) * inv_freq / factor + smooth * inv_freq.
at::Tensor rotary_inverse_frequencies(std::int64_t head_dim, double theta, const Llama3RopeScaling& scaling);

// x [B, heads, T, head_dim] at positions 0..T-1: x * cos + rotate_half(x) * sin, where
// rotate_half(x) = cat(-x2, x1) and cos, sin are of cat(t * inv_freq, t * inv_freq).
at::Tensor apply_rotary(const at::Tensor& x, const at::Tensor& inverse_frequencies);

}  // namespace embpriv
