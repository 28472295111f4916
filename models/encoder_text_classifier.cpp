#include "models/encoder_text_classifier.h"

#include <ATen/ATen.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/hf_encoder_tensors.h"

namespace embpriv {
namespace {

class EncoderNet final : public TextClassifierNet {
 public:
  // Takes float32 copies of the shared weights, which require gradients; a frozen word-embedding
  // matrix is never written, so the clones of a model share it.
  EncoderNet(const HfEncoderWeights& weights, const EncoderClassifierOptions& o) : w_(weights), options_(o) {
    // The shared parameters are the tensors in the order of hf_encoder_tensors
    // (models/hf_encoder_tensors.h), the word embeddings left out unless they are trained.
    for (const HfEncoderTensor& t : hf_encoder_tensors(w_)) {
      if (t.tensor == &w_.word_embeddings && !o.train_embeddings) {
        *t.tensor = t.tensor->detach().to(at::kFloat);
      } else {
        *t.tensor = t.tensor->detach().to(at::kFloat).clone();
        shared_.push_back(t.tensor->requires_grad_(true));
      }
    }
  }

  std::shared_ptr<TextClassifierNet> clone() const override { return std::make_shared<EncoderNet>(w_, options_); }
  std::vector<at::Tensor> shared() override { return shared_; }

  // Columns that are padding in every row are cut first (they change nothing: the mask keeps
  // them out of attention, and the head reads the first token), as the Transformer does.
  at::Tensor logits(const at::Tensor& all_ids, bool /*training: no dropout, eval-mode forward*/) override {
    const std::int64_t pad = w_.config.pad_token_id;
    const std::int64_t used = all_ids.ne(pad).any(0).nonzero().max().item<std::int64_t>() + 1;
    const at::Tensor ids = all_ids.narrow(1, 0, used);
    const HfEncoderModel model(w_);  // shares the tensors (and their gradients) of w_
    const at::Tensor logits = model.classify(model.hidden_states_of_ids(ids, ids.ne(pad).to(at::kLong)));
    return logits.select(1, 1) - logits.select(1, 0);
  }

  void check_ids(const at::Tensor& ids) const override {
    const std::int64_t vocabulary = w_.config.vocab_size, pad = w_.config.pad_token_id;
    EMBPRIV_CHECK(ids.dim() == 2 && ids.scalar_type() == at::kLong,
                  "encoder classifier: ids must be [N, L] int64, got " << ids.sizes() << " " << ids.scalar_type());
    EMBPRIV_CHECK(ids.size(1) >= 1 && ids.size(1) <= options_.max_tokens,
                  "encoder classifier: units of " << ids.size(1) << " tokens, the model takes 1 to " << options_.max_tokens);
    if (ids.numel() == 0) return;
    EMBPRIV_CHECK(ids.min().item<std::int64_t>() >= 0 && ids.max().item<std::int64_t>() < vocabulary,
                  "encoder classifier: token ids must lie in [0, " << vocabulary << ")");
    EMBPRIV_CHECK(ids.ne(pad).any(1).all().item<bool>(), "encoder classifier: a unit holds no token (only padding)");
  }

 private:
  HfEncoderWeights w_;
  EncoderClassifierOptions options_;
  std::vector<at::Tensor> shared_;
};

}  // namespace

TextClassifier encoder_text_classifier(const HfEncoderWeights& weights, const EncoderClassifierOptions& o) {
  const HfEncoderConfig& c = weights.config;
  EMBPRIV_CHECK(c.sequence_classification && c.num_labels == 2 && weights.classifier.defined(),
                "encoder classifier: flagging private units needs a sequence-classification head of 2 labels, the "
                "model has "
                    << (c.sequence_classification ? std::to_string(c.num_labels) + " labels" : std::string("none")));
  const std::int64_t longest = HfEncoderModel(weights).max_sequence_length();
  EMBPRIV_CHECK(o.max_tokens >= 1 && o.max_tokens <= longest,
                "encoder classifier: units of up to " << o.max_tokens << " tokens, the model's positions cover 1 to "
                                                      << longest);
  return TextClassifier(std::make_shared<EncoderNet>(weights, o));
}

}  // namespace embpriv
