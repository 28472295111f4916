#pragma once
// InvBert, the learned inversion attack of the ObfusLM paper (Section 5, "Inversion attacks"):
// a Transformer encoder reads the WHOLE perturbed sequence of a text and predicts every token
// at once, trained on public text perturbed by the same mechanism at the same eps (fresh noise
// every epoch; the adaptive attacker of vec2text's noise study). The window MLP of
// attacks/learned_inversion.h sees 2 w + 1 rows; InvBert sees the sentence.
//
// The network: the standardised perturbed rows [L, d] go through a linear map to the model
// width plus learned position rows, post-norm encoder layers (models/transformer_encoder.h,
// whose layer norms give the same bits at every thread count), and two heads whose logits add
// up: a free linear layer over the vocabulary (the context's prior) and BERT's tied decoder,
// a projection back to the embedding width scored against the attacker's unit-norm table rows
// (Devlin et al. 2019 tie the MLM decoder to the input embeddings), which lets the network
// match a row as KNN does where the noise is small. LibTorch; seeded; the same numbers at every
// thread count on the CPU.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "attacks/learned_inversion.h"

namespace embpriv {

struct InvBertOptions {
  std::int64_t hidden = 128;      // the model width
  std::int64_t layers = 2;
  std::int64_t heads = 4;
  std::int64_t feedforward = 256;
  std::int64_t max_length = 128;  // longer texts are cut into pieces of this many tokens
  std::int64_t epochs = 8;
  std::int64_t batch = 32;        // texts per step
  double learning_rate = 1e-3;
  std::uint64_t seed = 0;
  c10::Device device = c10::kCPU;
};

class InvBert {
 public:
  // Trains on the public sequences: table [V, d] gives the clean rows, perturb the noisy ones.
  // excluded (bool [V], optional): tokens never predicted (special tokens).
  static InvBert train(const TokenSequences& public_text, const at::Tensor& table, const RowPerturber& perturb,
                       const at::Tensor& excluded, const InvBertOptions& options);
  // The k most likely tokens of every perturbed row [N, d] of the sequences in `spans`: [N, k].
  at::Tensor guess(const at::Tensor& perturbed_rows, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                   std::int64_t k) const;
  double final_training_loss() const { return final_loss_; }

 private:
  struct Net;
  std::shared_ptr<Net> net_;
  at::Tensor mean_, scale_, excluded_;
  std::int64_t max_length_ = 0;
  c10::Device device_ = c10::kCPU;
  double final_loss_ = 0;
};

// The spans cut into pieces of at most `length` tokens, in order.
std::vector<std::pair<std::size_t, std::size_t>> cut_spans(const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                                                           std::int64_t length);

}  // namespace embpriv
