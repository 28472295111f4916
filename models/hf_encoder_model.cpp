#include "models/hf_encoder_model.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "models/attention_matmul.h"
#include "models/float32_linear.h"
#include "models/needs_grad.h"
#include "models/transformer_encoder.h"

namespace embpriv {
namespace {

// LayerNorm (Ba et al. 2016, eq. 4). When a gradient is taken on the CPU (training,
// models/encoder_training.h) it runs as thread_invariant_layer_norm (models/transformer_encoder.h):
// LibTorch 1.13's layer-norm backward sums dL/dgamma and dL/dbeta in one partial sum per thread,
// so training at 1 and 2 threads would round differently; the row-ordered sums give the same
// bits at every thread count. Its forward is LibTorch's kernel, so the outputs are the same bits
// either way.
at::Tensor layer_norm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias, double eps) {
  const bool training = at::GradMode::is_enabled() && (x.requires_grad() || weight.requires_grad() || bias.requires_grad());
  if (training && x.device().is_cpu()) return thread_invariant_layer_norm(x, as_float32(weight), as_float32(bias), eps);
  return at::layer_norm(x, {x.size(-1)}, as_float32(weight), as_float32(bias), eps);
}

// A [B, T] integer tensor of the batch's shape, or its default when undefined.
at::Tensor batch_ids(const at::Tensor& t, std::int64_t B, std::int64_t T, const char* what, c10::Device device) {
  EMBPRIV_CHECK(!t.is_floating_point(), what << " must be integers, got " << t.dtype());
  const at::Tensor out = (t.dim() == 1 ? t.unsqueeze(0) : t).to(device, at::kLong);
  EMBPRIV_CHECK(out.dim() == 2 && out.size(0) == B && out.size(1) == T,
                what << " must be [" << B << ", " << T << "], got " << t.sizes());
  return out;
}

void check_range(const at::Tensor& ids, std::int64_t size, const char* what) {
  if (ids.numel() == 0) return;
  const std::int64_t lo = ids.min().item<std::int64_t>(), hi = ids.max().item<std::int64_t>();
  EMBPRIV_CHECK(lo >= 0 && hi < size, what << " must be in [0, " << size << "), got " << (lo < 0 ? lo : hi));
}

}  // namespace

HfEncoderModel::HfEncoderModel(HfEncoderWeights weights) : w_(std::move(weights)) {
  // A config built in code (not parsed) could leave RoBERTa no position: one clear error here
  // rather than "sequence length must be in [1, -25812]" at the first forward pass.
  const HfEncoderConfig& c = config();
  EMBPRIV_CHECK(c.vocab_size >= 1 && c.pad_token_id >= 0 && c.pad_token_id < c.vocab_size,
                "encoder: pad_token_id must be a token id in [0, " << c.vocab_size << "), got " << c.pad_token_id);
  EMBPRIV_CHECK(c.position_padding_idx() >= 0 && c.max_sequence_length() >= 1,
                "encoder: max_position_embeddings " << c.max_position_embeddings
                                                    << " leaves no position after the padding index "
                                                    << c.position_padding_idx() << " + 1 (" << c.model_type << ")");
}

std::int64_t HfEncoderModel::max_sequence_length() const { return config().max_sequence_length(); }

at::Tensor HfEncoderModel::embedding_table() const { return as_float32(w_.word_embeddings).clone(); }

std::unique_ptr<EncoderModel> HfEncoderModel::with_token_rows(const at::Tensor& embedding) const {
  const std::vector<std::int64_t> shape{vocab_size(), hidden_size()};
  EMBPRIV_CHECK(embedding.sizes().vec() == shape,
                "new token rows must be " << at::IntArrayRef(shape) << ", got " << embedding.sizes());
  HfEncoderWeights weights = w_;
  weights.word_embeddings = embedding.to(w_.word_embeddings.device(), at::kFloat).contiguous();
  return std::make_unique<HfEncoderModel>(std::move(weights));
}

at::Tensor HfEncoderModel::embed(const at::Tensor& ids) const {
  EMBPRIV_CHECK(!ids.is_floating_point(), "token ids must be integers, got " << ids.dtype());
  const at::Tensor flat = ids.to(w_.word_embeddings.device(), at::kLong).reshape({-1});
  check_range(flat, vocab_size(), "token ids");
  std::vector<std::int64_t> shape = ids.sizes().vec();
  shape.push_back(hidden_size());
  return as_float32(w_.word_embeddings.index_select(0, flat)).reshape(shape);
}

at::Tensor HfEncoderModel::position_ids_from_ids(const at::Tensor& ids) const {
  const at::Tensor batch = (ids.dim() == 1 ? ids.unsqueeze(0) : ids).to(at::kLong);
  if (!config().roberta_positions()) {
    return at::arange(batch.size(1), batch.options()).unsqueeze(0).expand_as(batch).contiguous();
  }
  // modeling_roberta, create_position_ids_from_input_ids: padding keeps padding_idx, the other
  // tokens count from padding_idx + 1. Which ids are padding is the padding token's id; where the
  // positions start is the position table's padding index (the same but for a model served
  // permuted ids, HfEncoderConfig::position_padding_override).
  const at::Tensor real = batch.ne(config().pad_token_id).to(at::kLong);
  return at::cumsum(real, 1) * real + config().position_padding_idx();
}

// BertLayer: attention (BertSelfAttention + BertSelfOutput, post-LayerNorm), then BertIntermediate
// (GELU) and BertOutput (post-LayerNorm).
at::Tensor HfEncoderModel::layer(const HfEncoderLayer& L, const at::Tensor& x, const at::Tensor& additive_mask) const {
  const HfEncoderConfig& c = config();
  const std::int64_t B = x.size(0), T = x.size(1), heads = c.num_attention_heads, hd = c.head_dim();
  const auto split = [&](const at::Tensor& y) { return y.reshape({B, T, heads, hd}).transpose(1, 2); };
  const at::Tensor q = split(float32_linear(x, L.query, L.query_bias)), k = split(float32_linear(x, L.key, L.key_bias)),
                   v = split(float32_linear(x, L.value, L.value_bias));
  // Scaled dot-product attention (Vaswani et al. 2017, eq. 1), scaled and masked in place (the same
  // bits as (q k^T) / sqrt(d) + mask; no mask at all when no key is padding, as x + 0 is x).
  // (models/attention_matmul.h: one head's product per thread.)
  at::Tensor scores = attention_matmul(q, k.transpose(-2, -1)).div_(std::sqrt(static_cast<double>(hd)));
  if (additive_mask.defined()) scores.add_(additive_mask);
  const at::Tensor context =
      attention_matmul(at::softmax(scores, -1), v).transpose(1, 2).reshape({B, T, c.hidden_size});
  const at::Tensor attended = layer_norm(float32_linear(context, L.attention_out, L.attention_out_bias).add_(x),
                                         L.attention_norm, L.attention_norm_bias, c.layer_norm_eps);
  at::Tensor inner = float32_linear(attended, L.intermediate, L.intermediate_bias);
  // erf GELU, in place unless its backward will read its input
  inner = needs_grad(inner) ? at::gelu(inner) : at::gelu_(inner);
  return layer_norm(float32_linear(inner, L.output, L.output_bias).add_(attended), L.output_norm, L.output_norm_bias,
                    c.layer_norm_eps);
}

at::Tensor HfEncoderModel::hidden_states(const EncoderInput& input) const {
  const HfEncoderConfig& c = config();
  const at::Tensor& e = input.embeddings;
  const bool batched = e.dim() == 3;
  EMBPRIV_CHECK((e.dim() == 2 || batched) && e.size(-1) == c.hidden_size,
                "word embeddings must be [T, " << c.hidden_size << "] or [B, T, " << c.hidden_size << "], got " << e.sizes());
  const c10::Device device = w_.word_embeddings.device();
  const at::Tensor words = (batched ? e : e.unsqueeze(0)).to(device, at::kFloat);
  const std::int64_t B = words.size(0), T = words.size(1);
  EMBPRIV_CHECK(T >= 1 && T <= max_sequence_length(), "sequence length must be in [1, " << max_sequence_length() << "], got " << T);
  EMBPRIV_CHECK(at::isfinite(words).all().item<bool>(), "word embeddings hold NaN or Inf");
  const at::TensorOptions longs = at::TensorOptions().dtype(at::kLong).device(device);
  at::Tensor positions;
  if (input.position_ids.defined()) {
    positions = batch_ids(input.position_ids, B, T, "position_ids", device);
  } else {  // inputs_embeds: consecutive positions (RoBERTa's from padding_idx + 1)
    const std::int64_t first = c.roberta_positions() ? c.position_padding_idx() + 1 : 0;
    positions = at::arange(first, first + T, longs).unsqueeze(0).expand({B, T});
  }
  check_range(positions, c.max_position_embeddings, "position ids");
  const at::Tensor types = input.token_type_ids.defined() ? batch_ids(input.token_type_ids, B, T, "token_type_ids", device)
                                                          : at::zeros({B, T}, longs);
  check_range(types, c.type_vocab_size, "token type ids");
  // The attention mask becomes an additive one over the keys: -inf where padding (transformers
  // adds the dtype's lowest value; a row of padding only is refused instead). None when no key is
  // padding.
  at::Tensor additive;
  if (input.attention_mask.defined()) {
    const at::Tensor mask = batch_ids(input.attention_mask, B, T, "attention_mask", device);
    EMBPRIV_CHECK(mask.eq(0).logical_or(mask.eq(1)).all().item<bool>(), "attention_mask must hold 0 and 1 only");
    EMBPRIV_CHECK(mask.sum(1).gt(0).all().item<bool>(), "every attention_mask row needs at least one token");
    const at::Tensor padding = mask.eq(0);
    if (padding.any().item<bool>()) {
      additive = at::zeros({B, 1, 1, T}, words.options()).masked_fill_(padding.view({B, 1, 1, T}),
                                                                        -std::numeric_limits<float>::infinity());
    }
  }
  const auto rows = [&](const at::Tensor& table, const at::Tensor& ids) {
    return as_float32(table.index_select(0, ids.reshape({-1}))).reshape({B, T, c.hidden_size});
  };
  at::Tensor x = layer_norm(words + rows(w_.position_embeddings, positions) + rows(w_.token_type_embeddings, types),
                            w_.embeddings_norm, w_.embeddings_norm_bias, c.layer_norm_eps);
  for (const HfEncoderLayer& L : w_.layers) x = layer(L, x, additive);
  return batched ? x : x.squeeze(0);
}

at::Tensor HfEncoderModel::pool(const at::Tensor& hidden, const at::Tensor& attention_mask) const {
  EMBPRIV_CHECK(hidden.dim() == 3 && hidden.size(2) == hidden_size(),
                "hidden states must be [B, T, " << hidden_size() << "], got " << hidden.sizes());
  const at::Tensor pooled = pool_tokens(hidden, attention_mask);
  // sentence_transformers.models.Normalize: F.normalize(p=2, dim=1), x / max(||x||_2, 1e-12).
  return w_.normalize ? pooled / pooled.norm(2, {1}, true).clamp_min(1e-12) : pooled;
}

at::Tensor HfEncoderModel::pool_tokens(const at::Tensor& hidden, const at::Tensor& attention_mask) const {
  const std::int64_t B = hidden.size(0), T = hidden.size(1);
  if (w_.pooling == EncoderPooling::cls) return hidden.select(1, 0);
  const at::Tensor mask = attention_mask.defined()
                              ? batch_ids(attention_mask, B, T, "attention_mask", hidden.device()).to(hidden.scalar_type())
                              : at::ones({B, T}, hidden.options());
  const at::Tensor m = mask.unsqueeze(-1);
  if (w_.pooling == EncoderPooling::mean) {  // sentence-transformers Pooling: sum(h m) / max(sum(m), 1e-9)
    return (hidden * m).sum(1) / m.sum(1).clamp_min(1e-9);
  }
  return hidden.masked_fill(m.eq(0), -1e9).amax(1);  // max_tokens: padding set to -1e9 first
}

at::Tensor HfEncoderModel::classify(const at::Tensor& hidden) const {
  EMBPRIV_CHECK(num_labels() > 0, "the model has no sequence-classification head (config.json's 'architectures' "
                                  "name no ...ForSequenceClassification)");
  EMBPRIV_CHECK(hidden.dim() == 3 && hidden.size(2) == hidden_size(),
                "hidden states must be [B, T, " << hidden_size() << "], got " << hidden.sizes());
  const at::Tensor first = hidden.select(1, 0);
  if (config().model_type == "bert") {  // BertPooler (dense + tanh on [CLS]), then the classifier
    return float32_linear(at::tanh(float32_linear(first, w_.pooler, w_.pooler_bias)), w_.classifier, w_.classifier_bias);
  }
  // RobertaClassificationHead: dense + tanh on <s>, then out_proj.
  return float32_linear(at::tanh(float32_linear(first, w_.head_dense, w_.head_dense_bias)), w_.classifier, w_.classifier_bias);
}

}  // namespace embpriv
