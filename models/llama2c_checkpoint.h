#pragma once
// A llama2.c checkpoint (Karpathy's llama2.c, run.c): a header of 7 little-endian int32
// (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len), then float32 weights
// in run.c's order. vocab_size > 0 means the classifier shares the token-embedding matrix.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

namespace embpriv {

struct Llama2cConfig {
  std::int64_t dim = 0, hidden_dim = 0, n_layers = 0, n_heads = 0, n_kv_heads = 0,
               vocab_size = 0, seq_len = 0;
  bool shared_classifier = true;
  std::int64_t head_size() const { return dim / n_heads; }
  std::int64_t kv_dim() const { return dim * n_kv_heads / n_heads; }
};

// Weight matrices are stored as run.c uses them: [out, in] (y = W x).
struct Llama2cWeights {
  Llama2cConfig config;
  at::Tensor token_embedding;  // [vocab, dim]
  at::Tensor rms_attention;    // [layers, dim]
  at::Tensor wq, wk, wv, wo;   // [layers, dim, dim], [layers, kv_dim, dim] x2, [layers, dim, dim]
  at::Tensor rms_ffn;          // [layers, dim]
  at::Tensor w1, w2, w3;       // [layers, hidden, dim], [layers, dim, hidden], [layers, hidden, dim]
  at::Tensor rms_final;        // [dim]
  at::Tensor classifier;       // [vocab, dim] (the embedding matrix when shared)
};

// Reads a checkpoint; a missing, truncated or inconsistent file gives one clear Error.
Llama2cWeights load_llama2c_checkpoint(const std::string& path);

}  // namespace embpriv
