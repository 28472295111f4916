#pragma once
// The config.json of a Hugging Face Llama-family decoder (model_type llama, mistral, qwen2,
// qwen3), with what embpriv's forward pass (models/hf_decoder_model.h) needs of it. Anything the
// forward pass would get wrong is refused with one Error naming the key: another model_type or
// hidden_act, a rope_scaling other than none or "llama3", a missing size.
#include <cstdint>
#include <string>

namespace embpriv {

// rope_scaling {"rope_type": "llama3", factor, low_freq_factor, high_freq_factor,
// original_max_position_embeddings} (transformers, modeling_rope_utils, llama3).
struct Llama3RopeScaling {
  bool enabled = false;
  double factor = 1, low_freq_factor = 1, high_freq_factor = 4;
  std::int64_t original_max_position_embeddings = 8192;
};

struct HfDecoderConfig {
  std::string model_type;                  // llama | mistral | qwen2 | qwen3
  std::int64_t vocab_size = 0, hidden_size = 0, intermediate_size = 0, num_hidden_layers = 0,
               num_attention_heads = 0, num_key_value_heads = 0, head_dim = 0,
               max_position_embeddings = 0;
  std::int64_t sliding_window = 0;         // 0: none; else longer inputs are refused
  double rms_norm_eps = 1e-6, rope_theta = 10000;
  Llama3RopeScaling rope_scaling;
  bool tie_word_embeddings = false;
  std::int64_t bos_token_id = 1;           // the text start of sampled texts (absent or null: 1)
  bool qkv_bias = false;                   // q/k/v projections carry a bias (Qwen2; Llama attention_bias)
  bool o_bias = false;                     // o_proj carries a bias (Llama attention_bias)
  bool mlp_bias = false;                   // gate/up/down carry biases (Llama mlp_bias)
  bool qk_norm = false;                    // RMSNorm over each head of q and k (Qwen3)
  std::int64_t q_dim() const { return num_attention_heads * head_dim; }
  std::int64_t kv_dim() const { return num_key_value_heads * head_dim; }
};

// Parses config.json text; `source` names the file in errors.
HfDecoderConfig parse_hf_decoder_config(const std::string& json_text, const std::string& source);
// Reads FOLDER/config.json (a folder without one is refused).
HfDecoderConfig read_hf_decoder_config(const std::string& folder);

}  // namespace embpriv
