#include "models/hf_encoder_init.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "models/hf_encoder_tensors.h"

namespace embpriv {

HfEncoderWeights random_hf_encoder(const HfEncoderConfig& config, std::uint64_t seed) {
  const double initializer_range = config.initializer_range;
  EMBPRIV_CHECK(initializer_range > 0, "initializer_range must be > 0, got " << initializer_range);
  HfEncoderWeights w;
  w.config = config;
  const HfEncoderConfig& c = config;
  const std::int64_t h = c.hidden_size, inter = c.intermediate_size;
  const auto zeros = [](std::vector<std::int64_t> shape) { return at::zeros(shape, at::kFloat); };
  const auto ones = [](std::vector<std::int64_t> shape) { return at::ones(shape, at::kFloat); };
  w.word_embeddings = zeros({c.vocab_size, h});
  w.position_embeddings = zeros({c.max_position_embeddings, h});
  w.token_type_embeddings = zeros({c.type_vocab_size, h});
  w.embeddings_norm = ones({h});
  w.embeddings_norm_bias = zeros({h});
  w.layers.resize(static_cast<std::size_t>(c.num_hidden_layers));
  for (HfEncoderLayer& L : w.layers) {
    for (at::Tensor* t : {&L.query, &L.key, &L.value, &L.attention_out}) *t = zeros({h, h});
    for (at::Tensor* t : {&L.query_bias, &L.key_bias, &L.value_bias, &L.attention_out_bias, &L.attention_norm_bias,
                          &L.output_bias, &L.output_norm_bias}) {
      *t = zeros({h});
    }
    L.attention_norm = ones({h});
    L.output_norm = ones({h});
    L.intermediate = zeros({inter, h});
    L.intermediate_bias = zeros({inter});
    L.output = zeros({h, inter});
  }
  if (c.model_type == "bert") {  // BertModel's pooler (add_pooling_layer=True), read by its classifier
    w.pooler = zeros({h, h});
    w.pooler_bias = zeros({h});
  }
  if (c.sequence_classification) {
    EMBPRIV_CHECK(c.num_labels >= 2, "a classifier needs num_labels >= 2, got " << c.num_labels);
    if (c.model_type != "bert") {
      w.head_dense = zeros({h, h});
      w.head_dense_bias = zeros({h});
    }
    w.classifier = zeros({c.num_labels, h});
    w.classifier_bias = zeros({c.num_labels});
  }
  // _init_weights: normal(0, initializer_range) for every Linear and Embedding weight, in the
  // order of the names; LayerNorms and biases keep 1 and 0.
  std::vector<HfEncoderTensor> tensors = hf_encoder_tensors(w);
  std::sort(tensors.begin(), tensors.end(), [](const HfEncoderTensor& a, const HfEncoderTensor& b) { return a.name < b.name; });
  Rng rng(seed, 0);
  for (const HfEncoderTensor& t : tensors) {
    const bool matrix = t.tensor->dim() == 2;
    if (!matrix) continue;
    float* data = t.tensor->data_ptr<float>();
    for (std::int64_t i = 0; i < t.tensor->numel(); ++i) data[i] = static_cast<float>(initializer_range * rng.normal());
  }
  w.word_embeddings[c.pad_token_id].zero_();  // nn.Embedding(padding_idx=pad_token_id)
  if (c.sequence_classification && c.model_type == "bert") w.pooling = EncoderPooling::cls;
  return w;
}

void add_classification_head(HfEncoderWeights& w, std::int64_t num_labels, std::uint64_t seed) {
  const double initializer_range = w.config.initializer_range;
  EMBPRIV_CHECK(!w.config.sequence_classification, "the model already has a sequence-classification head");
  EMBPRIV_CHECK(num_labels >= 2, "a classifier needs num_labels >= 2, got " << num_labels);
  EMBPRIV_CHECK(initializer_range > 0, "initializer_range must be > 0, got " << initializer_range);
  const std::int64_t h = w.config.hidden_size;
  Rng rng(seed, 1);
  const auto normal = [&](std::vector<std::int64_t> shape) {
    at::Tensor t = at::empty(shape, at::kFloat);
    float* data = t.data_ptr<float>();
    for (std::int64_t i = 0; i < t.numel(); ++i) data[i] = static_cast<float>(initializer_range * rng.normal());
    return t;
  };
  const c10::Device device = w.word_embeddings.device();
  if (w.config.model_type == "bert") {
    if (!w.pooler.defined()) {
      w.pooler = normal({h, h}).to(device);
      w.pooler_bias = at::zeros({h}, at::TensorOptions().dtype(at::kFloat).device(device));
    }
  } else {
    w.head_dense = normal({h, h}).to(device);
    w.head_dense_bias = at::zeros({h}, at::TensorOptions().dtype(at::kFloat).device(device));
  }
  w.classifier = normal({num_labels, h}).to(device);
  w.classifier_bias = at::zeros({num_labels}, at::TensorOptions().dtype(at::kFloat).device(device));
  w.config.sequence_classification = true;
  w.config.num_labels = num_labels;
}

}  // namespace embpriv
