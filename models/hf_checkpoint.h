#pragma once
// The weights of a Hugging Face Llama-family folder: model.safetensors, or the shards that
// model.safetensors.index.json names ({"weight_map": {tensor: file}}), memory-mapped and kept in
// their file dtype (F32, F16 or BF16). Every tensor the forward pass reads is looked up and its
// shape checked against config.json when the checkpoint is loaded, so a missing or misshapen
// tensor is one Error naming it, before any computation.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/hf_decoder_config.h"

namespace embpriv {

class SafetensorsFile;

// The safetensors tensors of a Hugging Face folder, decoder or encoder: FOLDER/model.safetensors,
// or the shards model.safetensors.index.json names, each name resolved to the memory-mapped file
// that holds it. The one reader of both families' weights (load_hf_checkpoint,
// load_hf_encoder): it refuses a missing, misshapen or non-finite tensor by name when it is
// looked up, a shard that is missing, a folder, FIFO, dangling or looping link, and, after the
// last lookup, the tensors no lookup read.
class HfSafetensorsFolder {
 public:
  explicit HfSafetensorsFolder(const std::string& folder);
  bool contains(const std::string& name) const;
  // The tensor `name` in its file dtype, checked to have `shape` (config.json's) and finite
  // values; `why` is appended to the error when the checkpoint lacks it.
  at::Tensor tensor(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why = "") const;
  // Refuses the tensors no tensor() call read, except those `ignored` accepts (buffers, heads of
  // other tasks), naming up to four and the config.json keys (`keys`) that may be wrong.
  void check_all_used(const std::function<bool(const std::string&)>& ignored, const std::string& keys) const;
  // The files the tensors come from (model.safetensors, or the shards the index names).
  const std::vector<std::string>& files() const { return files_; }

 private:
  void read_index(const std::string& folder, const std::string& index);
  std::map<std::string, std::shared_ptr<SafetensorsFile>> where_;
  std::vector<std::string> files_;
  mutable std::set<std::string> used_;
};

// One decoder layer's tensors (HF names under model.layers.N.); undefined when absent (biases,
// q/k norms of other families). Matrices are [out, in] (y = W x + b).
struct HfDecoderLayer {
  at::Tensor input_layernorm, post_attention_layernorm;  // [hidden]
  at::Tensor q_proj, k_proj, v_proj, o_proj;             // [q_dim, hidden], [kv_dim, hidden] x2, [hidden, q_dim]
  at::Tensor q_bias, k_bias, v_bias, o_bias;
  at::Tensor q_norm, k_norm;                             // [head_dim] (Qwen3)
  at::Tensor gate_proj, up_proj, down_proj;              // [inter, hidden] x2, [hidden, inter]
  at::Tensor gate_bias, up_bias, down_bias;
};

struct HfDecoderWeights {
  HfDecoderConfig config;
  at::Tensor embed_tokens;  // model.embed_tokens.weight [vocab, hidden]
  std::vector<HfDecoderLayer> layers;
  at::Tensor norm;          // model.norm.weight [hidden]
  at::Tensor lm_head;       // lm_head.weight [vocab, hidden]; embed_tokens when tied
};

// Reads FOLDER/config.json and the safetensors weights; on a device other than the CPU the
// tensors are copied there (still in their file dtype).
// Refuses, naming the file or tensor: a missing or misshapen tensor, a NaN or Inf weight, a
// tensor config.json does not use (num_hidden_layers 1 on a 5-layer checkpoint), a shard that is
// a folder, FIFO, dangling or looping link.
HfDecoderWeights load_hf_checkpoint(const std::string& folder, c10::Device device = c10::kCPU);

// The whole text of a small file of a model folder (config.json, tokenizer.json, an index); a
// folder, FIFO, dangling or looping link in its place is refused naming it (std::ifstream would
// block, or throw underflow errors).
std::string read_model_folder_file(const std::string& path);

// Whether `name` names an entry directly inside a model folder, as an index's shard or a
// sentence-transformers module's folder does: not empty, no '/' (so neither an absolute path nor
// a subpath), not "." or "..". Anything else would read outside the folder (or the folder itself).
bool is_model_folder_entry(const std::string& name);

// The weight files load_hf_checkpoint reads: FOLDER/model.safetensors, or the shards
// model.safetensors.index.json names (other *.safetensors files in the folder, such as an
// interrupted download, are not read). Each is opened and its header checked.
std::vector<std::string> hf_weight_files(const std::string& folder);

}  // namespace embpriv
