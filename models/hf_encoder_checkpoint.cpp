// Loading a BERT-family Hugging Face folder (models/hf_encoder_model.h): config, weights by their
// transformers names, pooling, and the tokenizer's vocabulary checked against the config.
#include <ATen/ATen.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "models/hf_checkpoint.h"
#include "models/hf_encoder_model.h"
#include "models/sentence_modules.h"

namespace embpriv {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json_file(const fs::path& path) {
  try {
    return json::parse(read_model_folder_file(path.string()));
  } catch (const json::exception& e) {
    throw Error(path.string() + ": malformed JSON: " + e.what());
  }
}

// Tensors a BERT-family file may hold that no encoder forward reads: the pre-training and
// masked-LM heads of BertForPreTraining/BertForMaskedLM ("cls.") and RobertaForMaskedLM
// ("lm_head."), a sequence-classification head when config.json's architectures name a plain
// BertModel/RobertaModel (the hidden states of a fine-tuned classifier), and the
// position_ids/token_type_ids buffers older transformers saved with the embeddings. Anything
// else unread is refused (HfSafetensorsFolder::check_all_used).
bool other_task_or_buffer(const std::string& name, bool classifier) {
  const auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return name.rfind("cls.", 0) == 0 || name.rfind("lm_head.", 0) == 0 ||
         (!classifier && name.rfind("classifier.", 0) == 0) || ends_with("embeddings.position_ids") ||
         ends_with("embeddings.token_type_ids");
}

}  // namespace

std::int64_t tokenizer_json_id_count(const std::string& path) {
  const json j = read_json_file(path);
  std::int64_t count = 0;
  const auto see = [&](const json& id, const std::string& what) {
    EMBPRIV_CHECK(id.is_number_integer() && id.get<std::int64_t>() >= 0, path << ": " << what << " has id " << id.dump());
    count = std::max(count, id.get<std::int64_t>() + 1);
  };
  EMBPRIV_CHECK(j.is_object() && j.contains("model") && j["model"].is_object() && j["model"].contains("vocab"),
                path << ": missing key 'model.vocab'");
  const json& vocab = j["model"]["vocab"];
  if (vocab.is_object()) {  // BPE, WordPiece: {token: id}
    for (const auto& [token, id] : vocab.items()) see(id, "token '" + token + "'");
  } else {  // Unigram: [[piece, score], ...] by id
    EMBPRIV_CHECK(vocab.is_array(), path << ": 'model.vocab' is neither an object nor a list");
    count = static_cast<std::int64_t>(vocab.size());
  }
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    for (const json& a : j["added_tokens"]) {
      EMBPRIV_CHECK(a.is_object() && a.contains("id"), path << ": an added token has no 'id'");
      see(a["id"], "added token " + a.value("content", std::string("?")));
    }
  }
  return count;
}

HfEncoderWeights load_hf_encoder(const std::string& folder, c10::Device device) {
  HfEncoderWeights w;
  w.config = read_hf_encoder_config(folder);
  const HfEncoderConfig& c = w.config;
  const SentenceModules modules = read_sentence_modules(folder, c.hidden_size);
  w.pooling = modules.pooling;
  w.normalize = modules.normalize;
  const fs::path tokenizer = fs::path(folder) / "tokenizer.json";
  std::error_code ignored;  // a dangling or looping tokenizer.json is read, and refused by name
  if (fs::exists(fs::symlink_status(tokenizer, ignored))) {
    const std::int64_t ids = tokenizer_json_id_count(tokenizer.string());
    EMBPRIV_CHECK(ids <= c.vocab_size, tokenizer.string() << " assigns " << ids << " token ids, more than config.json's 'vocab_size' "
                                                          << c.vocab_size);
  }
  const HfSafetensorsFolder files(folder);
  // BertModel/RobertaModel save their tensors unprefixed; the task models (…ForSequenceClassification,
  // …ForMaskedLM) under "bert." or "roberta." (XLM-RoBERTa's too).
  const std::string base = c.model_type == "bert" ? "bert." : "roberta.";
  const std::string prefix = files.contains("embeddings.word_embeddings.weight") ? "" : base;
  const auto get = [&](const std::string& name, std::vector<std::int64_t> shape, const std::string& why = "") {
    return files.tensor(prefix + name, shape, why).to(device);
  };
  // LayerNorm weights: "weight"/"bias", or the "gamma"/"beta" of checkpoints converted from
  // TensorFlow (transformers renames them when loading).
  const auto norm = [&](const std::string& name, at::Tensor& weight, at::Tensor& bias) {
    const bool legacy = !files.contains(prefix + name + ".weight") && files.contains(prefix + name + ".gamma");
    weight = get(name + (legacy ? ".gamma" : ".weight"), {c.hidden_size});
    bias = get(name + (legacy ? ".beta" : ".bias"), {c.hidden_size});
  };
  const std::int64_t h = c.hidden_size, inter = c.intermediate_size;
  w.word_embeddings = get("embeddings.word_embeddings.weight", {c.vocab_size, h});
  w.position_embeddings = get("embeddings.position_embeddings.weight", {c.max_position_embeddings, h});
  w.token_type_embeddings = get("embeddings.token_type_embeddings.weight", {c.type_vocab_size, h});
  norm("embeddings.LayerNorm", w.embeddings_norm, w.embeddings_norm_bias);
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    HfEncoderLayer L;
    L.query = get(p + "attention.self.query.weight", {h, h});
    L.query_bias = get(p + "attention.self.query.bias", {h});
    L.key = get(p + "attention.self.key.weight", {h, h});
    L.key_bias = get(p + "attention.self.key.bias", {h});
    L.value = get(p + "attention.self.value.weight", {h, h});
    L.value_bias = get(p + "attention.self.value.bias", {h});
    L.attention_out = get(p + "attention.output.dense.weight", {h, h});
    L.attention_out_bias = get(p + "attention.output.dense.bias", {h});
    norm(p + "attention.output.LayerNorm", L.attention_norm, L.attention_norm_bias);
    L.intermediate = get(p + "intermediate.dense.weight", {inter, h});
    L.intermediate_bias = get(p + "intermediate.dense.bias", {inter});
    L.output = get(p + "output.dense.weight", {h, inter});
    L.output_bias = get(p + "output.dense.bias", {h});
    norm(p + "output.LayerNorm", L.output_norm, L.output_norm_bias);
    w.layers.push_back(std::move(L));
  }
  const bool bert = c.model_type == "bert";
  if (bert && c.sequence_classification) {  // BertForSequenceClassification classifies the pooler's output
    const std::string why = " (BertForSequenceClassification classifies the pooler's output)";
    w.pooler = get("pooler.dense.weight", {h, h}, why);
    w.pooler_bias = get("pooler.dense.bias", {h}, why);
  } else if (files.contains(prefix + "pooler.dense.weight")) {
    w.pooler = get("pooler.dense.weight", {h, h});
    w.pooler_bias = get("pooler.dense.bias", {h});
  }
  if (c.sequence_classification) {  // the heads sit outside the "bert."/"roberta." prefix
    const std::vector<std::int64_t> out{c.num_labels, h};
    const std::string why = " (config.json's architectures name a sequence-classification model)";
    if (bert) {
      w.classifier = files.tensor("classifier.weight", out, why).to(device);
      w.classifier_bias = files.tensor("classifier.bias", {c.num_labels}, why).to(device);
    } else {
      w.head_dense = files.tensor("classifier.dense.weight", {h, h}, why).to(device);
      w.head_dense_bias = files.tensor("classifier.dense.bias", {h}, why).to(device);
      w.classifier = files.tensor("classifier.out_proj.weight", out, why).to(device);
      w.classifier_bias = files.tensor("classifier.out_proj.bias", {c.num_labels}, why).to(device);
    }
  }
  files.check_all_used([classifier = c.sequence_classification](const std::string& name) {
    return other_task_or_buffer(name, classifier);
  }, "num_hidden_layers, architectures, model_type");
  return w;
}

}  // namespace embpriv
