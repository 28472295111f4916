#pragma once
// The learned embedding-inversion attack: an MLP reads a window of perturbed token embeddings
// (the token and `window` neighbours on each side, zero-padded at a sentence's ends) and
// predicts the token, trained on public text perturbed by the same mechanism at the same eps
// (fresh noise every epoch), then run on the private text. Stronger than KNN where the noise
// leaves context: the neighbours tell what the token is likely to be. LibTorch; seeded, and
// deterministic on the CPU for a given thread count.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace embpriv {

struct TokenSequences {
  at::Tensor ids;                                          // [N] int64: every sequence's tokens
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // [begin, end) of each sequence
};

// Perturbed embedding rows [N, d] of clean rows [N, d], from a seed (the mechanism's draws).
using RowPerturber = std::function<at::Tensor(const at::Tensor& clean_rows, std::uint64_t seed)>;

struct LearnedInversionOptions {
  std::int64_t window = 2;    // neighbours on each side
  std::int64_t hidden = 256;
  std::int64_t epochs = 8;
  std::int64_t batch = 512;
  double learning_rate = 2e-3;
  std::uint64_t seed = 0;
  // Where the network trains and answers (the run's `device:`); the noisy features are drawn on
  // the CPU and moved, so every device sees the same inputs and the same initial weights.
  c10::Device device = c10::kCPU;
};

class LearnedInverter {
 public:
  // Trains on the public sequences: table [V, d] gives the clean rows, perturb the noisy ones.
  // excluded (bool [V], optional): tokens never predicted (special tokens).
  static LearnedInverter train(const TokenSequences& public_text, const at::Tensor& table, const RowPerturber& perturb,
                               const at::Tensor& excluded, const LearnedInversionOptions& options);
  // The k most likely tokens of every perturbed row [N, d] of the sequences in `spans`: [N, k].
  at::Tensor guess(const at::Tensor& perturbed_rows, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                   std::int64_t k) const;
  double final_training_loss() const { return final_loss_; }

 private:
  struct Model;
  std::shared_ptr<Model> model_;
  std::int64_t window_ = 0;
  at::Tensor mean_, scale_, excluded_;
  c10::Device device_ = c10::kCPU;
  double final_loss_ = 0;
};

// The windows [N, (2 window + 1) d] of rows [N, d] within each span.
at::Tensor token_windows(const at::Tensor& rows, const std::vector<std::pair<std::size_t, std::size_t>>& spans,
                         std::int64_t window);

}  // namespace embpriv
