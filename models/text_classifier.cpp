#include "models/text_classifier.h"

#include <torch/torch.h>

#include <numeric>

#include "platform/blas_threads.h"
#include "core/error.h"
#include "core/rng.h"
#include "models/minibatches.h"
#include "models/transformer_encoder.h"

namespace embpriv {

namespace {

// PrivateAI's Transformer (the header's description) as a LibTorch module.
struct Net : torch::nn::Module {
  Net(const at::Tensor& table, const TextClassifierOptions& o) {
    const std::int64_t d = table.size(1);
    tokens = register_module("tokens", torch::nn::Embedding(torch::nn::EmbeddingOptions(table.size(0), d).padding_idx(0)));
    {
      torch::NoGradGuard no_grad;
      tokens->weight.copy_(table.to(at::kFloat));
    }
    tokens->weight.set_requires_grad(o.train_embeddings);
    positions = register_module("positions", torch::nn::Embedding(o.max_tokens, d));
    {
      torch::NoGradGuard no_grad;
      positions->weight.normal_(0.0, 0.02);  // small: the GloVe rows carry the content
    }
    encoder = register_module(
        "encoder", torch::nn::TransformerEncoder(torch::nn::TransformerEncoderOptions(
                                                     torch::nn::TransformerEncoderLayerOptions(d, o.heads)
                                                         .dim_feedforward(o.feedforward)
                                                         .dropout(0.0),
                                                     o.layers)));
    head = register_module("head", torch::nn::Linear(d, 1));
  }

  // ids [B, L] -> logits [B]. Columns that are padding in every row are cut first: they change
  // nothing (padding is masked out of attention and pooling) but cost time.
  torch::Tensor forward(const torch::Tensor& all_ids) {
    const std::int64_t used = all_ids.ne(0).any(0).nonzero().max().item<std::int64_t>() + 1;
    const torch::Tensor ids = all_ids.narrow(1, 0, used);
    const torch::Tensor padding = ids.eq(0);  // [B, L]
    const torch::Tensor x = tokens(ids) + positions->weight.narrow(0, 0, ids.size(1)).unsqueeze(0);
    // The encoder takes (L, B, d) in LibTorch 1.13. Its layer norms sum their parameters'
    // gradients in an order that does not depend on the thread count (transformer_encoder.h).
    const torch::Tensor h = thread_invariant_encoder_forward(encoder, x.transpose(0, 1), padding).transpose(0, 1);
    const torch::Tensor keep = (~padding).unsqueeze(2).to(h.dtype());
    const torch::Tensor pooled = (h * keep).sum(1) / keep.sum(1).clamp_min(1.0);
    return head(pooled).squeeze(1);
  }

  std::vector<torch::Tensor> shared() {
    std::vector<torch::Tensor> out;
    for (auto& p : parameters()) {
      if (p.requires_grad()) out.push_back(p);
    }
    return out;
  }

  torch::nn::Embedding tokens{nullptr}, positions{nullptr};
  torch::nn::TransformerEncoder encoder{nullptr};
  torch::nn::Linear head{nullptr};
};

void check_unit_ids(const at::Tensor& ids, std::int64_t vocabulary, std::int64_t max_tokens) {
  EMBPRIV_CHECK(ids.dim() == 2 && ids.scalar_type() == at::kLong,
                "text classifier: ids must be [N, L] int64, got " << ids.sizes() << " " << ids.scalar_type());
  EMBPRIV_CHECK(ids.size(1) >= 1 && ids.size(1) <= max_tokens,
                "text classifier: units of " << ids.size(1) << " tokens, the model takes 1 to " << max_tokens);
  if (ids.numel() == 0) return;
  EMBPRIV_CHECK(ids.min().item<std::int64_t>() >= 0 && ids.max().item<std::int64_t>() < vocabulary,
                "text classifier: token ids must lie in [0, " << vocabulary << ")");
  EMBPRIV_CHECK(ids.ne(0).any(1).all().item<bool>(), "text classifier: a unit holds no token (only padding)");
}

// The Transformer behind the TextClassifier interface.
class TransformerNet final : public TextClassifierNet {
 public:
  TransformerNet(const at::Tensor& embeddings, const TextClassifierOptions& o)
      : net_(std::make_shared<Net>(embeddings, o)), options_(o) {}

  std::shared_ptr<TextClassifierNet> clone() const override {
    auto copy = std::make_shared<TransformerNet>(net_->tokens->weight.detach(), options_);
    torch::NoGradGuard no_grad;
    auto to = copy->net_->named_parameters();
    for (const auto& item : net_->named_parameters()) to[item.key()].copy_(item.value());
    return copy;
  }
  std::vector<at::Tensor> shared() override { return net_->shared(); }
  at::Tensor logits(const at::Tensor& ids, bool training) override {
    net_->train(training);
    return net_->forward(ids);
  }
  void check_ids(const at::Tensor& ids) const override {
    check_unit_ids(ids, net_->tokens->weight.size(0), options_.max_tokens);
  }

 private:
  std::shared_ptr<Net> net_;
  TextClassifierOptions options_;
};

}  // namespace

TextClassifier::TextClassifier(std::shared_ptr<TextClassifierNet> net) : net_(std::move(net)) {
  EMBPRIV_CHECK(net_ != nullptr, "text classifier: no network");
}

TextClassifier::TextClassifier(const at::Tensor& embeddings, const TextClassifierOptions& o) {
  EMBPRIV_CHECK(embeddings.dim() == 2 && embeddings.size(0) >= 2 && embeddings.size(1) >= 1,
                "text classifier: embeddings must be [V >= 2, d], got " << embeddings.sizes());
  EMBPRIV_CHECK(o.layers >= 1 && o.heads >= 1 && o.feedforward >= 1 && o.max_tokens >= 1,
                "text classifier: layers, heads, feedforward and max_tokens must be >= 1");
  EMBPRIV_CHECK(embeddings.size(1) % o.heads == 0, "text classifier: " << o.heads << " heads do not divide the width "
                                                                       << embeddings.size(1) << " of the embeddings");
  EMBPRIV_CHECK(embeddings.isfinite().all().item<bool>(), "text classifier: the embeddings hold NaN or infinity");
  torch::manual_seed(derive_seed(o.seed, 0, "text_classifier.init"));
  net_ = std::make_shared<TransformerNet>(embeddings, o);
}

TextClassifier TextClassifier::clone() const { return TextClassifier(net_->clone()); }

std::int64_t TextClassifier::shared_size() const {
  std::int64_t n = 0;
  for (const auto& p : net_->shared()) n += p.numel();
  return n;
}

at::Tensor TextClassifier::shared_parameters() const {
  std::vector<torch::Tensor> flat;
  for (const auto& p : net_->shared()) flat.push_back(p.detach().reshape({-1}));
  return torch::cat(flat).clone();
}

void TextClassifier::set_shared_parameters(const at::Tensor& flat) {
  EMBPRIV_CHECK(flat.dim() == 1 && flat.size(0) == shared_size(),
                "text classifier: " << shared_size() << " shared parameters expected, got " << flat.sizes());
  EMBPRIV_CHECK(flat.isfinite().all().item<bool>(), "text classifier: shared parameters hold NaN or infinity");
  torch::NoGradGuard no_grad;
  const at::Tensor values = flat.to(at::kFloat);
  std::int64_t offset = 0;
  for (auto& p : net_->shared()) {
    p.copy_(values.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

double TextClassifier::train(const at::Tensor& ids, const at::Tensor& targets, const TrainOptions& o,
                             std::uint64_t seed) {
  net_->check_ids(ids);
  EMBPRIV_CHECK(targets.dim() == 1 && targets.size(0) == ids.size(0),
                "text classifier: " << ids.size(0) << " targets expected, got " << targets.sizes());
  EMBPRIV_CHECK(o.epochs >= 1 && o.batch >= 1 && o.learning_rate > 0,
                "text classifier: epochs and batch must be >= 1 and the learning rate > 0");
  const std::int64_t N = ids.size(0);
  if (N == 0) return 0.0;
  const at::Tensor y = targets.to(at::kFloat);
  EMBPRIV_CHECK(y.ge(0).logical_and(y.le(1)).all().item<bool>(), "text classifier: targets must lie in [0, 1]");
  const SingleThreadedBlas small_gemms;  // a one-layer Transformer of width 100: no BLAS pool beside LibTorch's
  torch::optim::Adam optimizer(net_->shared(), torch::optim::AdamOptions(o.learning_rate));
  Rng order_rng(derive_seed(seed, 0, "text_classifier.order"), 0);
  std::vector<std::int64_t> order(static_cast<std::size_t>(N));
  std::iota(order.begin(), order.end(), 0);
  double last_epoch_loss = 0;
  for (std::int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    double total = 0;
    for (const at::Tensor& rows : epoch_batches(order, o.batch, order_rng)) {
      optimizer.zero_grad();
      const torch::Tensor loss = torch::binary_cross_entropy_with_logits(net_->logits(ids.index_select(0, rows), true),
                                                                         y.index_select(0, rows));
      loss.backward();
      optimizer.step();
      total += loss.item<double>() * static_cast<double>(rows.numel());
    }
    last_epoch_loss = total / static_cast<double>(N);
  }
  return last_epoch_loss;
}

at::Tensor TextClassifier::gradient(const at::Tensor& ids, const at::Tensor& targets, double* loss) {
  net_->check_ids(ids);
  EMBPRIV_CHECK(targets.dim() == 1 && targets.size(0) == ids.size(0) && ids.size(0) > 0,
                "text classifier: " << ids.size(0) << " targets expected (at least one), got " << targets.sizes());
  const SingleThreadedBlas small_gemms;
  const std::vector<torch::Tensor> shared = net_->shared();
  for (auto& p : shared) p.mutable_grad() = torch::Tensor();
  const torch::Tensor value = torch::binary_cross_entropy_with_logits(net_->logits(ids, true), targets.to(at::kFloat));
  value.backward();
  if (loss) *loss = value.item<double>();
  std::vector<torch::Tensor> flat;
  for (const auto& p : shared) flat.push_back(p.grad().defined() ? p.grad().reshape({-1}) : torch::zeros({p.numel()}));
  return torch::cat(flat).clone();
}

at::Tensor TextClassifier::probabilities(const at::Tensor& ids) const {
  net_->check_ids(ids);
  torch::NoGradGuard no_grad;
  const std::int64_t N = ids.size(0), batch = 1024;
  std::vector<torch::Tensor> parts;
  for (std::int64_t b0 = 0; b0 < N; b0 += batch) {
    parts.push_back(torch::sigmoid(net_->logits(ids.narrow(0, b0, std::min(batch, N - b0)), false)));
  }
  return parts.empty() ? at::empty({0}, at::kDouble) : torch::cat(parts).to(at::kDouble);
}

}  // namespace embpriv
