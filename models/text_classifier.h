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
//
// The network behind a TextClassifier is a TextClassifierNet: this Transformer, or a BERT-family
// encoder with a sequence-classification head (models/encoder_text_classifier.h, the paper's
// BERT and RoBERTa privacy-identification models); training, the flat parameters and the
// answers are the same code for both.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

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

// The network a TextClassifier trains: token ids [N, L] in, one logit per unit out.
class TextClassifierNet {
 public:
  virtual ~TextClassifierNet() = default;
  // A deep copy (its own parameters, equal to these).
  virtual std::shared_ptr<TextClassifierNet> clone() const = 0;
  // The trainable tensors (requires_grad), always in one order: the layout of the shared
  // parameters.
  virtual std::vector<at::Tensor> shared() = 0;
  // ids [B, L] -> logits [B] float (autograd on the shared tensors); `training` selects the
  // network's training mode.
  virtual at::Tensor logits(const at::Tensor& ids, bool training) = 0;
  // Refuses ids this network cannot read, with one Error naming the problem.
  virtual void check_ids(const at::Tensor& ids) const = 0;
};

// Token ids of text units: [N, L] int64. For the Transformer: 0 = padding (never attended to),
// 1 = unknown word; for an encoder: its tokenizer's ids, padded with its pad_token_id. Every row
// holds at least one non-padding id.
class TextClassifier {
 public:
  // The Transformer; embeddings [V, d] float: row 0 (padding) and row 1 (unknown) included.
  TextClassifier(const at::Tensor& embeddings, const TextClassifierOptions& options);
  // Another network (models/encoder_text_classifier.h).
  explicit TextClassifier(std::shared_ptr<TextClassifierNet> net);
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
  std::shared_ptr<TextClassifierNet> net_;
};

}  // namespace embpriv
