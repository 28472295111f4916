// Hugging Face safetensors weights, single file or sharded, looked up by their HF names.
#include "models/hf_checkpoint.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "data/tables/embedding_formats.h"

namespace embpriv {
namespace {

namespace fs = std::filesystem;

// Whether a folder entry is there at all, a dangling or looping link included (those are then
// refused by name when read, never skipped for another file); a path the system cannot even
// look at (too long a name) is refused here, naming it.
bool entry_exists(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  EMBPRIV_CHECK(!error || status.type() == fs::file_type::not_found,
                "cannot look at '" << path.string() << "': " << error.message());
  return fs::exists(status);
}

}  // namespace

std::string read_model_folder_file(const std::string& name) {
  const fs::path path(name);
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  EMBPRIV_CHECK(!error, "cannot read '" << path.string() << "': " << error.message());
  EMBPRIV_CHECK(fs::is_regular_file(status), "'" << path.string() << "' is not a regular file");
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read '" << path.string() << "'");
  std::ostringstream text;
  text << in.rdbuf();
  EMBPRIV_CHECK(!in.bad(), "cannot read '" << path.string() << "'");
  return text.str();
}

namespace {

// A NaN or Inf weight makes every logit it touches NaN, and NaN argmaxes then agree with each
// other (the llama2.c loader refuses them too, models/llama2c_checkpoint.cpp): refuse it when
// the checkpoint is loaded, naming the tensor, the file and the first bad element. The scan runs
// over slices, so no boolean copy of a whole embedding matrix is made.
void check_finite(const at::Tensor& weights, const std::string& name, const std::string& file) {
  constexpr std::int64_t kSlice = std::int64_t{1} << 22;
  const at::Tensor flat = weights.reshape({-1});
  for (std::int64_t begin = 0; begin < flat.numel(); begin += kSlice) {
    const at::Tensor slice = flat.narrow(0, begin, std::min(kSlice, flat.numel() - begin));
    if (at::isfinite(slice).all().item<bool>()) continue;
    const std::int64_t first = begin + at::isfinite(slice).logical_not().nonzero()[0][0].item<std::int64_t>();
    throw Error(file + ": tensor '" + name + "' holds a non-finite weight (NaN or Inf) at element " +
                std::to_string(first) + " of " + std::to_string(flat.numel()));
  }
}

}  // namespace

HfSafetensorsFolder::HfSafetensorsFolder(const std::string& folder_name) {
  const fs::path folder(folder_name);
  const fs::path single = folder / "model.safetensors", index = folder / "model.safetensors.index.json";
  if (entry_exists(index)) {
    read_index(folder.string(), index.string());
  } else {
    EMBPRIV_CHECK(entry_exists(single), "model folder '" << folder.string()
                                                       << "' has neither model.safetensors nor model.safetensors.index.json");
    auto file = std::make_shared<SafetensorsFile>(single.string());
    for (const std::string& name : file->names()) where_[name] = file;
    files_.push_back(single.string());
  }
}

bool HfSafetensorsFolder::contains(const std::string& name) const { return where_.count(name) > 0; }

at::Tensor HfSafetensorsFolder::tensor(const std::string& name, const std::vector<std::int64_t>& shape,
                                       const std::string& why) const {
  const auto found = where_.find(name);
  EMBPRIV_CHECK(found != where_.end(), "the checkpoint has no tensor '" << name << "'" << why);
  const at::Tensor t = found->second->tensor(name);
  EMBPRIV_CHECK(t.sizes().vec() == shape, found->second->path() << ": tensor '" << name << "' has shape " << t.sizes()
                                                                << ", config.json implies " << at::IntArrayRef(shape));
  check_finite(t, name, found->second->path());
  used_.insert(name);
  return t;
}

// Tensors no lookup read are refused: a config.json that describes fewer layers than the
// checkpoint holds (num_hidden_layers 1 on a 5-layer file), or biases the config says are absent,
// would otherwise run another model than the file's without a word.
void HfSafetensorsFolder::check_all_used(const std::function<bool(const std::string&)>& ignored,
                                         const std::string& keys) const {
  std::vector<std::string> unused;
  for (const auto& [name, file] : where_) {
    if (!used_.count(name) && !ignored(name)) unused.push_back(name);
  }
  if (unused.empty()) return;
  std::string shown;
  for (std::size_t i = 0; i < unused.size() && i < 4; ++i) shown += (i ? ", '" : "'") + unused[i] + "'";
  throw Error(where_.at(unused.front())->path() + " holds " + std::to_string(unused.size()) +
              " tensor(s) config.json does not use (" + shown + (unused.size() > 4 ? ", ..." : "") +
              "); does config.json describe this checkpoint (" + keys + ")?");
}

void HfSafetensorsFolder::read_index(const std::string& folder_name, const std::string& index_name) {
  const fs::path folder(folder_name), index(index_name);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(read_model_folder_file(index.string()));
  } catch (const nlohmann::json::exception& e) {
    throw Error(index.string() + ": malformed JSON: " + e.what());
  }
  EMBPRIV_CHECK(json.is_object() && json.contains("weight_map") && json["weight_map"].is_object(),
                index.string() << ": missing key 'weight_map'");
  std::map<std::string, std::shared_ptr<SafetensorsFile>> shards;
  for (const auto& [name, file] : json["weight_map"].items()) {
    EMBPRIV_CHECK(file.is_string(), index.string() << ": weight_map['" << name << "'] is not a file name");
    const std::string shard = file.get<std::string>();
    EMBPRIV_CHECK(is_model_folder_entry(shard),
                  index.string() << ": weight_map['" << name << "'] names '" << shard << "' outside the folder");
    if (!shards.count(shard)) {
      EMBPRIV_CHECK(entry_exists(folder / shard), index.string() << " names the shard '" << shard << "', which is missing");
      shards[shard] = std::make_shared<SafetensorsFile>((folder / shard).string());
      files_.push_back((folder / shard).string());
    }
    EMBPRIV_CHECK(shards[shard]->contains(name),
                  index.string() << " puts tensor '" << name << "' in '" << shard << "', which lacks it");
    where_[name] = shards[shard];
  }
}

bool is_model_folder_entry(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

HfDecoderWeights load_hf_checkpoint(const std::string& folder, c10::Device device) {
  HfDecoderWeights w;
  w.config = read_hf_decoder_config(folder);
  const HfDecoderConfig& c = w.config;
  const HfSafetensorsFolder files(folder);
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
  // A tied lm_head.weight (a copy of the embedding some writers keep) and rotary inv_freq
  // buffers are not weights of the model.
  const auto ignored = [tied = c.tie_word_embeddings](const std::string& name) {
    const std::string suffix = "rotary_emb.inv_freq";
    const bool buffer = name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    return buffer || (tied && name == "lm_head.weight");
  };
  files.check_all_used(ignored, "num_hidden_layers, attention_bias, mlp_bias, tie_word_embeddings");
  return w;
}

std::vector<std::string> hf_weight_files(const std::string& folder) {
  return HfSafetensorsFolder(folder).files();
}

}  // namespace embpriv
