// Hugging Face safetensors weights, single file or sharded, looked up by their HF names.
#include "models/hf_checkpoint.h"

#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "data/embedding_formats.h"

namespace embpriv {
namespace {

namespace fs = std::filesystem;

// The tensors of a folder: each name resolved to the (mapped) file holding it.
class SafetensorsFolder {
 public:
  explicit SafetensorsFolder(const fs::path& folder) {
    const fs::path single = folder / "model.safetensors", index = folder / "model.safetensors.index.json";
    if (fs::exists(index)) {
      read_index(folder, index);
    } else {
      EMBPRIV_CHECK(fs::exists(single), "model folder '" << folder.string()
                                                         << "' has neither model.safetensors nor model.safetensors.index.json");
      auto file = std::make_shared<SafetensorsFile>(single.string());
      for (const std::string& name : file->names()) where_[name] = file;
    }
  }
  bool contains(const std::string& name) const { return where_.count(name) > 0; }
  at::Tensor tensor(const std::string& name, const std::vector<std::int64_t>& shape) const {
    const auto found = where_.find(name);
    EMBPRIV_CHECK(found != where_.end(), "the checkpoint has no tensor '" << name << "'");
    const at::Tensor t = found->second->tensor(name);
    EMBPRIV_CHECK(t.sizes().vec() == shape, found->second->path() << ": tensor '" << name << "' has shape "
                                                                  << t.sizes() << ", config.json implies "
                                                                  << at::IntArrayRef(shape));
    return t;
  }

 private:
  void read_index(const fs::path& folder, const fs::path& index) {
    std::ifstream in(index);
    EMBPRIV_CHECK(in, "cannot read '" << index.string() << "'");
    nlohmann::json json;
    try {
      json = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw Error(index.string() + ": malformed JSON: " + e.what());
    }
    EMBPRIV_CHECK(json.is_object() && json.contains("weight_map") && json["weight_map"].is_object(),
                  index.string() << ": missing key 'weight_map'");
    std::map<std::string, std::shared_ptr<SafetensorsFile>> shards;
    for (const auto& [name, file] : json["weight_map"].items()) {
      EMBPRIV_CHECK(file.is_string(), index.string() << ": weight_map['" << name << "'] is not a file name");
      const std::string shard = file.get<std::string>();
      EMBPRIV_CHECK(shard.find('/') == std::string::npos && shard != ".." && shard != ".",
                    index.string() << ": weight_map['" << name << "'] names '" << shard << "' outside the folder");
      if (!shards.count(shard)) {
        EMBPRIV_CHECK(fs::exists(folder / shard),
                      index.string() << " names the shard '" << shard << "', which is missing");
        shards[shard] = std::make_shared<SafetensorsFile>((folder / shard).string());
      }
      EMBPRIV_CHECK(shards[shard]->contains(name),
                    index.string() << " puts tensor '" << name << "' in '" << shard << "', which lacks it");
      where_[name] = shards[shard];
    }
  }
  std::map<std::string, std::shared_ptr<SafetensorsFile>> where_;
};

}  // namespace

HfDecoderWeights load_hf_checkpoint(const std::string& folder, c10::Device device) {
  HfDecoderWeights w;
  w.config = read_hf_decoder_config(folder);
  const HfDecoderConfig& c = w.config;
  const SafetensorsFolder files{fs::path(folder)};
  const auto get = [&](const std::string& name, std::vector<std::int64_t> shape) {
    return files.tensor(name, shape).to(device);
  };
  const auto optional = [&](bool present, const std::string& name, std::vector<std::int64_t> shape) {
    return present ? get(name, std::move(shape)) : at::Tensor();
  };
  const std::int64_t h = c.hidden_size, inter = c.intermediate_size;
  w.embed_tokens = get("model.embed_tokens.weight", {c.vocab_size, h});
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    HfDecoderLayer L;
    L.input_layernorm = get(p + "input_layernorm.weight", {h});
    L.post_attention_layernorm = get(p + "post_attention_layernorm.weight", {h});
    L.q_proj = get(p + "self_attn.q_proj.weight", {c.q_dim(), h});
    L.k_proj = get(p + "self_attn.k_proj.weight", {c.kv_dim(), h});
    L.v_proj = get(p + "self_attn.v_proj.weight", {c.kv_dim(), h});
    L.o_proj = get(p + "self_attn.o_proj.weight", {h, c.q_dim()});
    L.q_bias = optional(c.qkv_bias, p + "self_attn.q_proj.bias", {c.q_dim()});
    L.k_bias = optional(c.qkv_bias, p + "self_attn.k_proj.bias", {c.kv_dim()});
    L.v_bias = optional(c.qkv_bias, p + "self_attn.v_proj.bias", {c.kv_dim()});
    L.o_bias = optional(c.o_bias, p + "self_attn.o_proj.bias", {h});
    L.q_norm = optional(c.qk_norm, p + "self_attn.q_norm.weight", {c.head_dim});
    L.k_norm = optional(c.qk_norm, p + "self_attn.k_norm.weight", {c.head_dim});
    L.gate_proj = get(p + "mlp.gate_proj.weight", {inter, h});
    L.up_proj = get(p + "mlp.up_proj.weight", {inter, h});
    L.down_proj = get(p + "mlp.down_proj.weight", {h, inter});
    L.gate_bias = optional(c.mlp_bias, p + "mlp.gate_proj.bias", {inter});
    L.up_bias = optional(c.mlp_bias, p + "mlp.up_proj.bias", {inter});
    L.down_bias = optional(c.mlp_bias, p + "mlp.down_proj.bias", {h});
    w.layers.push_back(std::move(L));
  }
  w.norm = get("model.norm.weight", {h});
  // A tied head is stored once (transformers' save_pretrained drops lm_head.weight then).
  w.lm_head = c.tie_word_embeddings ? w.embed_tokens : get("lm_head.weight", {c.vocab_size, h});
  return w;
}

}  // namespace embpriv
