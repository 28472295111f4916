#include "models/llama2c_model.h"

#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"
#include "models/attention_matmul.h"

namespace embpriv {
namespace {

constexpr double kRmsEpsilon = 1e-5;  // run.c, rmsnorm()

// RMSNorm: x / sqrt(mean(x^2) + 1e-5) * weight (run.c, rmsnorm()).
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight) {
  return x * at::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + kRmsEpsilon) * weight;
}

}  // namespace

Llama2cModel::Llama2cModel(Llama2cWeights weights) : w_(std::move(weights)) {}

Llama2cModel Llama2cModel::with_vocabulary(const at::Tensor& embedding, const at::Tensor& classifier) const {
  EMBPRIV_CHECK(embedding.sizes() == w_.token_embedding.sizes() && classifier.sizes() == w_.classifier.sizes(),
                "llama2c: new token rows must be " << w_.token_embedding.sizes() << ", got " << embedding.sizes()
                                                   << " and " << classifier.sizes());
  Llama2cWeights weights = w_;
  weights.token_embedding = embedding.to(at::kFloat).contiguous();
  weights.classifier = classifier.to(at::kFloat).contiguous();
  return Llama2cModel(std::move(weights));
}

at::Tensor Llama2cModel::embed(const at::Tensor& ids) const {
  EMBPRIV_CHECK(!ids.is_floating_point(), "token ids must be integers, got " << ids.dtype());
  const at::Tensor flat = ids.to(w_.token_embedding.device(), at::kLong);
  if (flat.numel() > 0) {
    const std::int64_t lo = flat.min().item<std::int64_t>(), hi = flat.max().item<std::int64_t>();
    EMBPRIV_CHECK(lo >= 0 && hi < config().vocab_size,
                  "token ids must be in [0, " << config().vocab_size << "), got " << (lo < 0 ? lo : hi));
  }
  return w_.token_embedding.index_select(0, flat.reshape({-1})).reshape(
      [&] {
        std::vector<std::int64_t> shape(ids.sizes().begin(), ids.sizes().end());
        shape.push_back(config().dim);
        return shape;
      }());
}

// Rotary position embedding on [B, T, heads * head_size]: each head's pairs (2j, 2j+1) at
// position t are rotated by t * 10000^(-2j / head_size) (run.c, the RoPE loop).
at::Tensor Llama2cModel::rope(const at::Tensor& x, std::int64_t heads) const {
  const std::int64_t B = x.size(0), T = x.size(1), hs = config().head_size();
  const at::Tensor j = at::arange(0, hs, 2, x.options().dtype(at::kFloat));
  const at::Tensor frequency = at::pow(10000.0, -j / static_cast<double>(hs));  // [hs/2]
  const at::Tensor angle = at::arange(T, x.options().dtype(at::kFloat)).unsqueeze(1) * frequency;  // [T, hs/2]
  const at::Tensor cos = angle.cos().unsqueeze(1), sin = angle.sin().unsqueeze(1);  // [T, 1, hs/2]
  const at::Tensor pairs = x.reshape({B, T, heads, hs / 2, 2});
  const at::Tensor even = pairs.select(-1, 0), odd = pairs.select(-1, 1);
  return at::stack({even * cos - odd * sin, even * sin + odd * cos}, -1).reshape({B, T, heads * hs});
}

at::Tensor Llama2cModel::forward_embeddings(const at::Tensor& embeddings) const {
  const Llama2cConfig& c = config();
  const bool batched = embeddings.dim() == 3;
  EMBPRIV_CHECK((embeddings.dim() == 2 || batched) && embeddings.size(-1) == c.dim,
                "input embeddings must be [T, " << c.dim << "] or [B, T, " << c.dim << "], got "
                                                << embeddings.sizes());
  at::Tensor x = (batched ? embeddings : embeddings.unsqueeze(0)).to(w_.token_embedding.device(), at::kFloat);
  const std::int64_t B = x.size(0), T = x.size(1), hs = c.head_size();
  EMBPRIV_CHECK(T >= 1 && T <= c.seq_len, "sequence length must be in [1, " << c.seq_len << "], got " << T);
  EMBPRIV_CHECK(at::isfinite(x).all().item<bool>(), "input embeddings hold NaN or Inf");
  const std::int64_t kv_repeat = c.n_heads / c.n_kv_heads;
  const at::Tensor causal = at::ones({T, T}, x.options().dtype(at::kBool)).triu(1);  // masks the future
  for (std::int64_t l = 0; l < c.n_layers; ++l) {
    // Attention block: x += Wo attention(RoPE(Wq xb), RoPE(Wk xb), Wv xb), xb = RMSNorm(x).
    const at::Tensor xb = rms_norm(x, w_.rms_attention[l]);
    const at::Tensor q = rope(at::matmul(xb, w_.wq[l].t()), c.n_heads)
                             .reshape({B, T, c.n_heads, hs}).transpose(1, 2);
    const at::Tensor k = rope(at::matmul(xb, w_.wk[l].t()), c.n_kv_heads)
                             .reshape({B, T, c.n_kv_heads, hs}).transpose(1, 2)
                             .repeat_interleave(kv_repeat, 1);  // head h reads kv head h / kv_repeat
    const at::Tensor v = at::matmul(xb, w_.wv[l].t()).reshape({B, T, c.n_kv_heads, hs})
                             .transpose(1, 2).repeat_interleave(kv_repeat, 1);
    const at::Tensor scores =
        (attention_matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hs)))
            .masked_fill(causal, -std::numeric_limits<float>::infinity());
    const at::Tensor attended =
        attention_matmul(at::softmax(scores, -1), v).transpose(1, 2).reshape({B, T, c.dim});  // attention_matmul.h
    x = x + at::matmul(attended, w_.wo[l].t());
    // Feed-forward block (SwiGLU): x += W2 (silu(W1 xb) * W3 xb), xb = RMSNorm(x).
    const at::Tensor xf = rms_norm(x, w_.rms_ffn[l]);
    x = x + at::matmul(at::silu(at::matmul(xf, w_.w1[l].t())) * at::matmul(xf, w_.w3[l].t()),
                       w_.w2[l].t());
  }
  const at::Tensor logits = at::matmul(rms_norm(x, w_.rms_final), w_.classifier.t());
  return batched ? logits : logits.squeeze(0);
}

}  // namespace embpriv
