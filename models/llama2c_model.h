#pragma once
// The llama2.c language model (LLaMA architecture: RMSNorm, rotary position embeddings,
// grouped-query attention, SwiGLU feed-forward, a classifier shared with the token embedding)
// as a LibTorch forward pass that starts from INPUT EMBEDDINGS, so perturbed embeddings can be
// fed in: the split-inference hook of the vMF paper (sec. 8). Follows Karpathy's run.c.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "models/language_model.h"
#include "models/llama2c_checkpoint.h"

namespace embpriv {

class Llama2cModel : public LanguageModel {
 public:
  explicit Llama2cModel(Llama2cWeights weights);
  const Llama2cConfig& config() const { return w_.config; }
  // The token-embedding matrix [vocab, dim] (the table an attacker knows).
  at::Tensor embedding_table() const override { return w_.token_embedding; }
  const at::Tensor& classifier() const { return w_.classifier; }
  at::Tensor head_table() const override { return w_.classifier; }
  bool tied_head() const override { return w_.classifier.data_ptr() == w_.token_embedding.data_ptr(); }
  std::int64_t vocab_size() const override { return w_.config.vocab_size; }
  std::int64_t hidden_size() const override { return w_.config.dim; }
  std::int64_t max_sequence_length() const override { return w_.config.seq_len; }
  std::unique_ptr<LanguageModel> with_token_rows(const at::Tensor& embedding, const at::Tensor& head) const override {
    return std::make_unique<Llama2cModel>(with_vocabulary(embedding, head));
  }
  // The same model with other token rows: an input-embedding matrix and a classifier (head)
  // matrix, both [vocab, dim] (the same tensor for a shared head). ObfusLM's server model.
  Llama2cModel with_vocabulary(const at::Tensor& embedding, const at::Tensor& classifier) const;

  // Input embeddings of token ids [T] or [B, T]: [.., dim].
  at::Tensor embed(const at::Tensor& ids) const override;
  // Next-token logits at every position, [T, vocab] or [B, T, vocab], from input embeddings
  // [T, dim] or [B, T, dim] (float32; causal; T <= seq_len).
  at::Tensor forward_embeddings(const at::Tensor& embeddings) const override;

 private:
  at::Tensor rope(const at::Tensor& x, std::int64_t heads) const;
  Llama2cWeights w_;
};

}  // namespace embpriv
