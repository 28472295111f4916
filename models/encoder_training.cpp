#include "models/encoder_training.h"

#include <ATen/ATen.h>
#include <torch/optim/adam.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"
#include "data/tables/embedding_formats.h"
#include "models/hf_encoder_tensors.h"
#include "models/sentence_modules.h"

namespace embpriv {
namespace {

// A padded batch [B, T] of texts (cut to max_length) and its attention mask.
std::pair<at::Tensor, at::Tensor> pad_batch(const std::vector<std::vector<std::int64_t>>& texts,
                                            const std::vector<std::size_t>& rows, std::int64_t pad, std::int64_t max_length) {
  std::int64_t T = 1;
  for (std::size_t r : rows) T = std::max(T, std::min<std::int64_t>(max_length, static_cast<std::int64_t>(texts[r].size())));
  at::Tensor ids = at::full({static_cast<std::int64_t>(rows.size()), T}, pad, at::kLong);
  at::Tensor mask = at::zeros({static_cast<std::int64_t>(rows.size()), T}, at::kLong);
  auto id = ids.accessor<std::int64_t, 2>();
  auto m = mask.accessor<std::int64_t, 2>();
  for (std::size_t b = 0; b < rows.size(); ++b) {
    const std::vector<std::int64_t>& text = texts[rows[b]];
    EMBPRIV_CHECK(!text.empty(), "text " << rows[b] << " has no tokens");
    for (std::int64_t t = 0; t < std::min<std::int64_t>(T, static_cast<std::int64_t>(text.size())); ++t) {
      id[static_cast<std::int64_t>(b)][t] = text[static_cast<std::size_t>(t)];
      m[static_cast<std::int64_t>(b)][t] = 1;
    }
  }
  return {ids, mask};
}

}  // namespace

std::vector<double> train_encoder_classifier(HfEncoderWeights& w, const std::vector<std::vector<std::int64_t>>& texts,
                                             const std::vector<std::int64_t>& labels, const EncoderTrainingOptions& o) {
  const HfEncoderConfig& c = w.config;
  EMBPRIV_CHECK(c.sequence_classification, "training needs a sequence-classification model (config.json's architectures)");
  EMBPRIV_CHECK(texts.size() == labels.size() && !texts.empty(),
                "training needs one label per text, got " << texts.size() << " texts and " << labels.size() << " labels");
  EMBPRIV_CHECK(o.epochs >= 1 && o.batch_size >= 1 && o.learning_rate > 0 && o.max_length >= 1,
                "epochs, batch_size, max_length must be >= 1 and learning_rate > 0");
  EMBPRIV_CHECK(o.train_layers == -1 || (o.train_layers >= 0 && o.train_layers <= c.num_hidden_layers),
                "train_layers must be -1 (all) or in [0, " << c.num_hidden_layers << "], got " << o.train_layers);
  for (std::int64_t label : labels) {
    EMBPRIV_CHECK(label >= 0 && label < c.num_labels, "labels must be in [0, " << c.num_labels << "), got " << label);
  }
  // Trainable float32 copies; the others float32 too (the forward reads them every step).
  std::vector<at::Tensor> parameters;
  const std::int64_t first_trained = o.train_layers < 0 ? -1 : c.num_hidden_layers - o.train_layers;
  for (const HfEncoderTensor& t : hf_encoder_tensors(w)) {
    *t.tensor = t.tensor->to(at::kFloat).clone();
    if (t.layer >= first_trained || is_classification_head_tensor(t.name)) parameters.push_back(t.tensor->requires_grad_(true));
  }
  const HfEncoderModel model(w);  // shares the tensors above
  torch::optim::Adam adam(parameters, torch::optim::AdamOptions(o.learning_rate));
  std::vector<double> epoch_loss;
  std::vector<std::size_t> order(texts.size());
  for (std::int64_t epoch = 0; epoch < o.epochs; ++epoch) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    Rng rng(o.seed, static_cast<std::uint64_t>(epoch));
    shuffle(order, rng);
    double total = 0;
    for (std::size_t start = 0; start < order.size(); start += static_cast<std::size_t>(o.batch_size)) {
      const std::vector<std::size_t> rows(order.begin() + static_cast<std::ptrdiff_t>(start),
                                          order.begin() + static_cast<std::ptrdiff_t>(std::min(order.size(), start + static_cast<std::size_t>(o.batch_size))));
      const auto [ids, mask] = pad_batch(texts, rows, c.pad_token_id, std::min(o.max_length, model.max_sequence_length()));
      std::vector<std::int64_t> target;
      for (std::size_t r : rows) target.push_back(labels[r]);
      const at::Tensor logits = model.classify(model.hidden_states_of_ids(ids, mask));
      const at::Tensor loss = at::cross_entropy_loss(logits, at::tensor(target, at::kLong));
      adam.zero_grad();
      loss.backward();
      adam.step();
      total += loss.item<double>() * static_cast<double>(rows.size());
    }
    epoch_loss.push_back(total / static_cast<double>(order.size()));
  }
  for (at::Tensor& p : parameters) p.requires_grad_(false);
  return epoch_loss;
}

std::vector<std::int64_t> predict_encoder_labels(const HfEncoderModel& model, const std::vector<std::vector<std::int64_t>>& texts,
                                                 std::int64_t batch_size, std::int64_t max_length) {
  at::NoGradGuard no_grad;
  std::vector<std::int64_t> out;
  for (std::size_t start = 0; start < texts.size(); start += static_cast<std::size_t>(batch_size)) {
    std::vector<std::size_t> rows;
    for (std::size_t r = start; r < std::min(texts.size(), start + static_cast<std::size_t>(batch_size)); ++r) rows.push_back(r);
    const auto [ids, mask] = pad_batch(texts, rows, model.config().pad_token_id, std::min(max_length, model.max_sequence_length()));
    const at::Tensor predicted = model.classify(model.hidden_states_of_ids(ids, mask)).argmax(1);
    for (std::int64_t i = 0; i < predicted.size(0); ++i) out.push_back(predicted[i].item<std::int64_t>());
  }
  return out;
}

void save_hf_encoder(const HfEncoderWeights& weights, const std::string& folder) {
  HfEncoderWeights w = weights;
  const HfEncoderConfig& c = w.config;
  // config.json has one key, pad_token_id, for the padding token and the position table's
  // padding index: a model whose two differ (ObfusLM's server model) has no config.json.
  EMBPRIV_CHECK(c.position_padding_idx() == c.pad_token_id,
                "save_hf_encoder: the padding token " << c.pad_token_id << " and the position padding index "
                                                      << c.position_padding_idx()
                                                      << " differ (a model served permuted ids), which config.json's "
                                                         "one 'pad_token_id' cannot say");
  std::filesystem::create_directories(folder);
  const bool bert = c.model_type == "bert";
  nlohmann::json config = {{"model_type", c.model_type}, {"vocab_size", c.vocab_size}, {"hidden_size", c.hidden_size},
                           {"intermediate_size", c.intermediate_size}, {"num_hidden_layers", c.num_hidden_layers},
                           {"num_attention_heads", c.num_attention_heads},
                           {"max_position_embeddings", c.max_position_embeddings}, {"type_vocab_size", c.type_vocab_size},
                           {"layer_norm_eps", c.layer_norm_eps}, {"initializer_range", c.initializer_range},
                           {"pad_token_id", c.pad_token_id}, {"hidden_act", "gelu"}, {"position_embedding_type", "absolute"}};
  const std::string family = bert ? "Bert" : c.model_type == "roberta" ? "Roberta" : "XLMRoberta";
  config["architectures"] = {family + (c.sequence_classification ? "ForSequenceClassification" : "Model")};
  if (c.sequence_classification) {
    nlohmann::json id2label = nlohmann::json::object();
    for (std::int64_t i = 0; i < c.num_labels; ++i) id2label[std::to_string(i)] = "LABEL_" + std::to_string(i);
    config["id2label"] = id2label;
  }
  std::ofstream(std::filesystem::path(folder) / "config.json") << config.dump(2) << "\n";
  const std::string prefix = c.sequence_classification ? (bert ? "bert." : "roberta.") : "";
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  for (const HfEncoderTensor& t : hf_encoder_tensors(w)) {
    tensors.emplace_back((is_classification_head_tensor(t.name) ? "" : prefix) + t.name, t.tensor->detach().to(at::kFloat).contiguous());
  }
  write_safetensors((std::filesystem::path(folder) / "model.safetensors").string(), tensors);
  // Always written, so a folder saved over an older one never keeps that one's modules.
  write_sentence_modules(folder, {w.pooling, w.normalize}, c.hidden_size);
}

}  // namespace embpriv
