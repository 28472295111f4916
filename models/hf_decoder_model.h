#pragma once
// A Hugging Face Llama-family decoder (Llama 2/3, Mistral, Qwen2, Qwen3) as a forward pass from
// input embeddings, following transformers' modeling_llama.py, modeling_qwen2.py and
// modeling_qwen3.py: RMSNorm, grouped-query attention with rotate_half rotary embeddings
// (models/rotary_embedding.h), optional q/k/v biases (Qwen2), RMSNorm over each head of q and k
// before the rotary (Qwen3), SwiGLU MLP, a tied or separate head.
//
// The weights stay in their file dtype, memory-mapped (models/hf_checkpoint.h); each matrix is
// converted to float32 when a forward pass uses it and dropped after, so F16/BF16 weights cost
// their file size plus, at any time, one float32 matrix (the head is converted in slices of
// kHeadRows rows). F32 weights are used in place, without a copy.
//
// Computation is float32 by default. `compute` bfloat16 (opt-in) computes as transformers does
// with torch_dtype=torch.bfloat16: every product and elementwise op in bf16 (LibTorch's oneDNN
// GEMMs, AMX or AVX-512 BF16 where the CPU has them), RMSNorm and softmax in float32 inside, as
// transformers casts them; BF16 weights are used in place. Its logits differ from float32's by
// bf16's rounding (docs/models.md, "bfloat16 compute"); inputs, hidden states and logits are
// still passed as float32.
#include <cstdint>
#include <memory>

#include "models/hf_checkpoint.h"
#include "models/language_model.h"

namespace embpriv {

class HfDecoderModel : public LanguageModel {
 public:
  static constexpr std::int64_t kHeadRows = 16384;

  explicit HfDecoderModel(HfDecoderWeights weights, at::ScalarType compute = at::kFloat);
  const HfDecoderConfig& config() const { return w_.config; }
  at::ScalarType compute_dtype() const { return compute_; }

  std::int64_t vocab_size() const override { return config().vocab_size; }
  std::int64_t hidden_size() const override { return config().hidden_size; }
  std::int64_t max_sequence_length() const override;
  at::Tensor embedding_table() const override;
  at::Tensor head_table() const override;
  bool tied_head() const override { return config().tie_word_embeddings; }
  std::int64_t bos_id() const override { return config().bos_token_id; }
  std::unique_ptr<LanguageModel> with_token_rows(const at::Tensor& embedding, const at::Tensor& head) const override;
  at::Tensor embed(const at::Tensor& ids) const override;
  at::Tensor forward_embeddings(const at::Tensor& embeddings) const override;
  // The hidden states [B, T, hidden] (or [T, hidden]) after the first `layers` decoder layers,
  // as transformers' output_hidden_states lists them: 0 gives the input embeddings, a layer
  // below num_hidden_layers its output, num_hidden_layers the last layer's output after the
  // final RMSNorm (LlamaModel's last_hidden_state, what the head reads).
  at::Tensor hidden_states_after(const at::Tensor& embeddings, std::int64_t layers) const;

 private:
  at::Tensor attention(const HfDecoderLayer& layer, const at::Tensor& x) const;
  at::Tensor mlp(const HfDecoderLayer& layer, const at::Tensor& x) const;
  at::Tensor head(const at::Tensor& x) const;
  // hidden_states_after in the compute dtype.
  at::Tensor hidden_states(const at::Tensor& embeddings, std::int64_t layers) const;
  HfDecoderWeights w_;
  at::Tensor inverse_frequencies_;
  at::ScalarType compute_;
};

}  // namespace embpriv
