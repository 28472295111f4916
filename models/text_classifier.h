#pragma once
// PrivateAI's privacy-identification model (PrivateAI paper, sec. 3.1, "Transformer": a
// one-layer Transformer network): token embeddings (initialised from GloVe, frozen unless
// `train_embeddings`), learned position embeddings, `layers` post-norm Transformer encoder
// layers (Vaswani et al. 2017), mean pooling over the unit's tokens and one logit: the
// probability that the unit holds private information. LibTorch; seeded, and on the CPU the same
// bits whatever LibTorch's thread count (models/transformer_encoder.h).
//
// Federated learning moves the *shared* parameters (every trainable one) as one flat float
// vector: shared_parameters() / set_shared_parameters().
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>

namespace embpriv {

struct TextClassifierOptions {
  std::int64_t layers = 1;
  std::int64_t heads = 4;         // must divide the embedding width
  std::int64_t feedforward = 128;
  std::int64_t max_tokens = 32;   // longest unit (ids are [N, max_tokens] or narrower)
  bool train_embeddings = false;  // true: the token embeddings are trained (and shared)
  std::uint64_t seed = 0;         // initialisation of everything but the embeddings
};

struct TrainOptions {
  std::int64_t epochs = 1;
  std::int64_t batch = 32;
  double learning_rate = 1e-4;  // Adam (Kingma & Ba 2015); PrivateAI uses 1e-4 for its Transformer
};

// Token ids of text units: [N, L] int64, 0 = padding (never attended to), 1 = unknown word.
// Every row holds at least one non-padding id.
class TextClassifier {
 public:
  // embeddings [V, d] float: row 0 (padding) and row 1 (unknown) included.
  TextClassifier(const at::Tensor& embeddings, const TextClassifierOptions& options);
  TextClassifier clone() const;  // a deep copy

  std::int64_t shared_size() const;
  at::Tensor shared_parameters() const;  // [P] float, a copy
  void set_shared_parameters(const at::Tensor& flat);

  // Adam on binary cross-entropy against targets [N] in [0, 1] (hard labels or soft teacher
  // answers), mini-batches in an order drawn from `seed`; a fresh optimizer each call (a
  // client's local training). Returns the mean loss of the last epoch.
  double train(const at::Tensor& ids, const at::Tensor& targets, const TrainOptions& options, std::uint64_t seed);

  at::Tensor probabilities(const at::Tensor& ids) const;  // [N] double, P(private)

  // The gradient [P] (float, the layout of shared_parameters()) of the mean binary
  // cross-entropy on these units, at the current parameters; *loss receives the loss.
  at::Tensor gradient(const at::Tensor& ids, const at::Tensor& targets, double* loss = nullptr);

 private:
  struct Net;
  std::shared_ptr<Net> net_;
  TextClassifierOptions options_;
};

}  // namespace embpriv
