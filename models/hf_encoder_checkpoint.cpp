// Loading a BERT-family Hugging Face folder (models/hf_encoder_model.h): config, weights by their
// transformers names, pooling, and the tokenizer's vocabulary checked against the config.
#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "data/tables/embedding_formats.h"
#include "models/hf_encoder_model.h"

namespace embpriv {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_json_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read '" << path.string() << "'");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw Error(path.string() + ": malformed JSON: " + e.what());
  }
}

// The safetensors tensors of a folder by name: model.safetensors, or the shards of
// model.safetensors.index.json (as models/hf_checkpoint.cpp reads a decoder's).
class EncoderTensors {
 public:
  explicit EncoderTensors(const fs::path& folder) {
    const fs::path single = folder / "model.safetensors", index = folder / "model.safetensors.index.json";
    if (fs::exists(index)) {
      const json j = read_json_file(index);
      EMBPRIV_CHECK(j.is_object() && j.contains("weight_map") && j["weight_map"].is_object(),
                    index.string() << ": missing key 'weight_map'");
      std::map<std::string, std::shared_ptr<SafetensorsFile>> shards;
      for (const auto& [name, file] : j["weight_map"].items()) {
        EMBPRIV_CHECK(file.is_string(), index.string() << ": weight_map['" << name << "'] is not a file name");
        const std::string shard = file.get<std::string>();
        EMBPRIV_CHECK(shard.find('/') == std::string::npos && shard != ".." && shard != "." && !shard.empty(),
                      index.string() << ": weight_map['" << name << "'] names '" << shard << "' outside the folder");
        if (!shards.count(shard)) {
          EMBPRIV_CHECK(fs::is_regular_file(folder / shard), index.string() << " names the shard '" << shard << "', which is missing");
          shards[shard] = std::make_shared<SafetensorsFile>((folder / shard).string());
        }
        EMBPRIV_CHECK(shards[shard]->contains(name), index.string() << " puts tensor '" << name << "' in '" << shard << "', which lacks it");
        where_[name] = shards[shard];
      }
    } else {
      EMBPRIV_CHECK(fs::exists(single), "model folder '" << folder.string()
                                                         << "' has neither model.safetensors nor model.safetensors.index.json");
      auto file = std::make_shared<SafetensorsFile>(single.string());
      for (const std::string& name : file->names()) where_[name] = file;
    }
  }
  bool contains(const std::string& name) const { return where_.count(name) > 0; }
  at::Tensor get(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why = "") const {
    const auto found = where_.find(name);
    EMBPRIV_CHECK(found != where_.end(), "the checkpoint has no tensor '" << name << "'" << why);
    const at::Tensor t = found->second->tensor(name);
    EMBPRIV_CHECK(t.sizes().vec() == shape, found->second->path() << ": tensor '" << name << "' has shape " << t.sizes()
                                                                  << ", config.json implies " << at::IntArrayRef(shape));
    return t;
  }

 private:
  std::map<std::string, std::shared_ptr<SafetensorsFile>> where_;
};

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
  w.pooling = read_encoder_pooling(folder, c.hidden_size);
  const fs::path tokenizer = fs::path(folder) / "tokenizer.json";
  if (fs::exists(tokenizer)) {
    const std::int64_t ids = tokenizer_json_id_count(tokenizer.string());
    EMBPRIV_CHECK(ids <= c.vocab_size, tokenizer.string() << " assigns " << ids << " token ids, more than config.json's 'vocab_size' "
                                                          << c.vocab_size);
  }
  const EncoderTensors files{fs::path(folder)};
  // BertModel/RobertaModel save their tensors unprefixed; the task models (…ForSequenceClassification,
  // …ForMaskedLM) under "bert." or "roberta." (XLM-RoBERTa's too).
  const std::string base = c.model_type == "bert" ? "bert." : "roberta.";
  const std::string prefix = files.contains("embeddings.word_embeddings.weight") ? "" : base;
  const auto get = [&](const std::string& name, std::vector<std::int64_t> shape, const std::string& why = "") {
    return files.get(prefix + name, shape, why).to(device);
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
      w.classifier = files.get("classifier.weight", out, why).to(device);
      w.classifier_bias = files.get("classifier.bias", {c.num_labels}, why).to(device);
    } else {
      w.head_dense = files.get("classifier.dense.weight", {h, h}, why).to(device);
      w.head_dense_bias = files.get("classifier.dense.bias", {h}, why).to(device);
      w.classifier = files.get("classifier.out_proj.weight", out, why).to(device);
      w.classifier_bias = files.get("classifier.out_proj.bias", {c.num_labels}, why).to(device);
    }
  }
  return w;
}

}  // namespace embpriv
