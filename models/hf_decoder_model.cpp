#include "models/hf_decoder_model.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "models/attention_matmul.h"
#include "models/float32_linear.h"
#include "models/needs_grad.h"
#include "models/rotary_embedding.h"

namespace embpriv {
namespace {

// LlamaRMSNorm: x / sqrt(mean(x^2) + eps) * weight, over the last dimension, in float32 and then
// rounded to x's dtype before the weight multiplies it, as transformers does for bf16 (the weight
// multiplied in place: the same bits; both casts are no-ops in float32).
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const at::Tensor h = x.to(at::kFloat);
  return (h * at::rsqrt(h.pow(2).mean(-1, /*keepdim=*/true) + eps)).to(x.scalar_type()).mul_(weight.to(x.scalar_type()));
}


}  // namespace

HfDecoderModel::HfDecoderModel(HfDecoderWeights weights, at::ScalarType compute)
    : w_(std::move(weights)),
      inverse_frequencies_(rotary_inverse_frequencies(w_.config.head_dim, w_.config.rope_theta, w_.config.rope_scaling)
                               .to(w_.embed_tokens.device())),
      compute_(compute) {
  EMBPRIV_CHECK(compute == at::kFloat || compute == at::kBFloat16,
                "a decoder computes in float32 or bfloat16, not " << c10::toString(compute));
}

std::int64_t HfDecoderModel::max_sequence_length() const {
  const std::int64_t window = config().sliding_window;
  return window > 0 ? std::min(window, config().max_position_embeddings) : config().max_position_embeddings;
}

at::Tensor HfDecoderModel::embedding_table() const { return as_float32(w_.embed_tokens).clone(); }
at::Tensor HfDecoderModel::head_table() const { return as_float32(w_.lm_head).clone(); }

std::unique_ptr<LanguageModel> HfDecoderModel::with_token_rows(const at::Tensor& embedding, const at::Tensor& head) const {
  const std::vector<std::int64_t> shape{vocab_size(), hidden_size()};
  EMBPRIV_CHECK(embedding.sizes().vec() == shape && head.sizes().vec() == shape,
                "new token rows must be " << at::IntArrayRef(shape) << ", got " << embedding.sizes() << " and "
                                          << head.sizes());
  HfDecoderWeights weights = w_;
  const c10::Device device = w_.embed_tokens.device();
  const bool tied = embedding.is_same(head);
  weights.embed_tokens = embedding.to(device, at::kFloat).contiguous();
  weights.lm_head = tied ? weights.embed_tokens : head.to(device, at::kFloat).contiguous();
  weights.config.tie_word_embeddings = tied;
  return std::make_unique<HfDecoderModel>(std::move(weights), compute_);
}

at::Tensor HfDecoderModel::embed(const at::Tensor& ids) const {
  EMBPRIV_CHECK(!ids.is_floating_point(), "token ids must be integers, got " << ids.dtype());
  const at::Tensor flat = ids.to(w_.embed_tokens.device(), at::kLong).reshape({-1});
  if (flat.numel() > 0) {
    const std::int64_t lo = flat.min().item<std::int64_t>(), hi = flat.max().item<std::int64_t>();
    EMBPRIV_CHECK(lo >= 0 && hi < vocab_size(), "token ids must be in [0, " << vocab_size() << "), got " << (lo < 0 ? lo : hi));
  }
  std::vector<std::int64_t> shape = ids.sizes().vec();
  shape.push_back(hidden_size());
  return as_float32(w_.embed_tokens.index_select(0, flat)).reshape(shape);
}

// LlamaAttention / Qwen2Attention / Qwen3Attention on x [B, T, hidden] (already normed).
at::Tensor HfDecoderModel::attention(const HfDecoderLayer& L, const at::Tensor& x) const {
  const HfDecoderConfig& c = config();
  const std::int64_t B = x.size(0), T = x.size(1), hd = c.head_dim;
  const auto heads = [&](const at::Tensor& y, std::int64_t n) { return y.reshape({B, T, n, hd}).transpose(1, 2); };
  at::Tensor q = heads(linear_layer(x, L.q_proj, L.q_bias), c.num_attention_heads);
  at::Tensor k = heads(linear_layer(x, L.k_proj, L.k_bias), c.num_key_value_heads);
  const at::Tensor v = heads(linear_layer(x, L.v_proj, L.v_bias), c.num_key_value_heads);
  if (c.qk_norm) {  // Qwen3: q_norm, k_norm over head_dim, before the rotary.
    q = rms_norm(q, L.q_norm, c.rms_norm_eps);
    k = rms_norm(k, L.k_norm, c.rms_norm_eps);
  }
  q = apply_rotary(q, inverse_frequencies_);
  k = apply_rotary(k, inverse_frequencies_);
  // repeat_kv: query head h reads key/value head h / (heads / kv_heads).
  const std::int64_t repeat = c.num_attention_heads / c.num_key_value_heads;
  const at::Tensor keys = k.repeat_interleave(repeat, 1), values = v.repeat_interleave(repeat, 1);
  const at::Tensor future = at::ones({T, T}, x.options().dtype(at::kBool)).triu(1);
  // Scaled and causally masked in place: the same bits as (q k^T / sqrt(d)).masked_fill(...).
  // (models/attention_matmul.h: one head's product per thread.) transformers takes the softmax in
  // float32 and rounds it to bf16 (softmax(..., dtype=torch.float32).to(q.dtype)); LibTorch's
  // bf16 softmax does just that inside (float accumulation, one rounding at the end), without the
  // two float32 copies of the scores: the same bits (tests/python/test_models.py), 4-5% of a bf16
  // forward pass (bench/LOG.md).
  const at::Tensor scores = attention_matmul(q, keys.transpose(-2, -1))
                                .div_(std::sqrt(static_cast<double>(hd)))
                                .masked_fill_(future, -std::numeric_limits<float>::infinity());
  const at::Tensor probabilities = at::softmax(scores, -1);
  const at::Tensor attended =
      attention_matmul(probabilities, values).transpose(1, 2).reshape({B, T, c.q_dim()});
  return linear_layer(attended, L.o_proj, L.o_bias);
}

// LlamaMLP: down(silu(gate(x)) * up(x)); silu and the product in place unless a backward will
// read what they overwrite.
at::Tensor HfDecoderModel::mlp(const HfDecoderLayer& L, const at::Tensor& x) const {
  at::Tensor gate = linear_layer(x, L.gate_proj, L.gate_bias);
  const at::Tensor up = linear_layer(x, L.up_proj, L.up_bias);
  const at::Tensor product = needs_grad(gate) || needs_grad(up) ? at::silu(gate) * up : at::silu_(gate).mul_(up);
  return linear_layer(product, L.down_proj, L.down_bias);
}

// Logits x lm_head^T, float32: in bfloat16 one product of the bf16 head, widened after (the logits
// transformers' bf16 lm_head gives); in float32 the head converted kHeadRows rows at a time when
// not float32.
at::Tensor HfDecoderModel::head(const at::Tensor& x) const {
  if (compute_ == at::kBFloat16) return at::matmul(x, w_.lm_head.to(at::kBFloat16).t()).to(at::kFloat);
  if (w_.lm_head.scalar_type() == at::kFloat) return at::matmul(x, w_.lm_head.t());
  const auto slice = [&](std::int64_t row) {
    return as_float32(w_.lm_head.narrow(0, row, std::min(kHeadRows, vocab_size() - row))).t();
  };
  if (needs_grad(x)) {
    std::vector<at::Tensor> slices;
    for (std::int64_t row = 0; row < vocab_size(); row += kHeadRows) slices.push_back(at::matmul(x, slice(row)));
    return at::cat(slices, -1);
  }
  // Without a gradient each slice's GEMM writes its columns of the logits in place (mm's out=;
  // the same GEMM as matmul's, so the same bits), with no copy of the logits to join them.
  const at::Tensor rows = x.reshape({-1, hidden_size()});
  at::Tensor logits = at::empty({rows.size(0), vocab_size()}, rows.options());
  for (std::int64_t row = 0; row < vocab_size(); row += kHeadRows) {
    at::Tensor columns = logits.narrow(1, row, std::min(kHeadRows, vocab_size() - row));
    at::mm_out(columns, rows, slice(row));
  }
  std::vector<std::int64_t> shape = x.sizes().vec();
  shape.back() = vocab_size();
  return logits.reshape(shape);
}

at::Tensor HfDecoderModel::forward_embeddings(const at::Tensor& embeddings) const {
  return head(hidden_states(embeddings, static_cast<std::int64_t>(w_.layers.size())));
}

at::Tensor HfDecoderModel::hidden_states_after(const at::Tensor& embeddings, std::int64_t layers) const {
  return hidden_states(embeddings, layers).to(at::kFloat);
}

at::Tensor HfDecoderModel::hidden_states(const at::Tensor& embeddings, std::int64_t layers) const {
  const HfDecoderConfig& c = config();
  const auto count = static_cast<std::int64_t>(w_.layers.size());
  EMBPRIV_CHECK(layers >= 0 && layers <= count, "layer must be in [0, " << count << "], got " << layers);
  const bool batched = embeddings.dim() == 3;
  EMBPRIV_CHECK((embeddings.dim() == 2 || batched) && embeddings.size(-1) == c.hidden_size,
                "input embeddings must be [T, " << c.hidden_size << "] or [B, T, " << c.hidden_size << "], got "
                                                << embeddings.sizes());
  at::Tensor x = (batched ? embeddings : embeddings.unsqueeze(0)).to(w_.embed_tokens.device(), at::kFloat);
  const std::int64_t T = x.size(1);
  EMBPRIV_CHECK(T >= 1 && T <= max_sequence_length(),
                "sequence length must be in [1, " << max_sequence_length() << "], got " << T);
  EMBPRIV_CHECK(at::isfinite(x).all().item<bool>(), "input embeddings hold NaN or Inf");
  if (compute_ != at::kFloat) {  // rounded to bf16, as transformers' bf16 model takes inputs_embeds
    x = x.to(compute_);
    EMBPRIV_CHECK(at::isfinite(x).all().item<bool>(), "input embeddings overflow bfloat16 (|x| above 3.39e38)");
  }
  for (std::int64_t i = 0; i < layers; ++i) {  // LlamaDecoderLayer: two pre-norm residual blocks
    const HfDecoderLayer& layer = w_.layers[static_cast<std::size_t>(i)];
    // The residual added in place to the block's fresh output (a + x is x + a, the same bits).
    x = attention(layer, rms_norm(x, layer.input_layernorm, c.rms_norm_eps)).add_(x);
    x = mlp(layer, rms_norm(x, layer.post_attention_layernorm, c.rms_norm_eps)).add_(x);
  }
  if (layers == count) x = rms_norm(x, w_.norm, c.rms_norm_eps);
  return batched ? x : x.squeeze(0);
}

}  // namespace embpriv
