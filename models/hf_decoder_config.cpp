// config.json of a Llama-family decoder; the defaults are those of transformers' LlamaConfig,
// MistralConfig, Qwen2Config and Qwen3Config for keys a file may leave out.
#include "models/hf_decoder_config.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace embpriv {
namespace {

using nlohmann::json;

// A required positive integer key.
std::int64_t required_size(const json& config, const char* key, const std::string& source) {
  EMBPRIV_CHECK(config.contains(key) && !config[key].is_null(), source << ": missing key '" << key << "'");
  EMBPRIV_CHECK(config[key].is_number_integer() && config[key].get<std::int64_t>() > 0,
                source << ": '" << key << "' must be a positive integer, got " << config[key].dump());
  return config[key].get<std::int64_t>();
}

// An optional integer key (absent or null: `fallback`), positive when given.
std::int64_t optional_size(const json& config, const char* key, std::int64_t fallback, const std::string& source) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  return required_size(config, key, source);
}

double optional_positive(const json& config, const char* key, double fallback, const std::string& source) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  EMBPRIV_CHECK(config[key].is_number() && config[key].get<double>() > 0,
                source << ": '" << key << "' must be a positive number, got " << config[key].dump());
  return config[key].get<double>();
}

bool optional_flag(const json& config, const char* key, bool fallback, const std::string& source) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  EMBPRIV_CHECK(config[key].is_boolean(), source << ": '" << key << "' must be true or false, got " << config[key].dump());
  return config[key].get<bool>();
}

// rope_scaling: null, {"rope_type": "default"}, or the llama3 rule; anything else is refused.
Llama3RopeScaling parse_rope_scaling(const json& config, const std::string& source) {
  Llama3RopeScaling scaling;
  if (!config.contains("rope_scaling") || config["rope_scaling"].is_null()) return scaling;
  const json& r = config["rope_scaling"];
  EMBPRIV_CHECK(r.is_object(), source << ": 'rope_scaling' must be null or an object, got " << r.dump());
  const char* type_key = r.contains("rope_type") ? "rope_type" : "type";
  EMBPRIV_CHECK(r.contains(type_key) && r[type_key].is_string(), source << ": 'rope_scaling' has no 'rope_type'");
  const std::string type = r[type_key].get<std::string>();
  if (type == "default") return scaling;
  EMBPRIV_CHECK(type == "llama3", source << ": unsupported rope_scaling." << type_key << " '" << type
                                         << "' (supported: none, default, llama3)");
  const std::string where = source + ": rope_scaling";
  scaling.enabled = true;
  scaling.factor = optional_positive(r, "factor", 0, where);
  scaling.low_freq_factor = optional_positive(r, "low_freq_factor", 0, where);
  scaling.high_freq_factor = optional_positive(r, "high_freq_factor", 0, where);
  scaling.original_max_position_embeddings = required_size(r, "original_max_position_embeddings", where);
  for (const char* key : {"factor", "low_freq_factor", "high_freq_factor"}) {
    EMBPRIV_CHECK(r.contains(key), where << ": missing key '" << key << "'");
  }
  EMBPRIV_CHECK(scaling.high_freq_factor > scaling.low_freq_factor,
                where << ": 'high_freq_factor' must exceed 'low_freq_factor'");
  return scaling;
}

}  // namespace

HfDecoderConfig parse_hf_decoder_config(const std::string& json_text, const std::string& source) {
  json config;
  try {
    config = json::parse(json_text);
  } catch (const json::exception& e) {
    throw Error(source + ": malformed JSON: " + e.what());
  }
  EMBPRIV_CHECK(config.is_object(), source << ": config.json must be a JSON object");
  EMBPRIV_CHECK(config.contains("model_type") && config["model_type"].is_string(), source << ": missing key 'model_type'");
  HfDecoderConfig c;
  c.model_type = config["model_type"].get<std::string>();
  const bool llama = c.model_type == "llama", mistral = c.model_type == "mistral",
             qwen2 = c.model_type == "qwen2", qwen3 = c.model_type == "qwen3";
  EMBPRIV_CHECK(llama || mistral || qwen2 || qwen3, source << ": unsupported model_type '" << c.model_type
                                                         << "' (supported: llama, mistral, qwen2, qwen3)");
  std::string act = "silu";
  if (config.contains("hidden_act") && !config["hidden_act"].is_null()) {
    EMBPRIV_CHECK(config["hidden_act"].is_string(),
                  source << ": 'hidden_act' must be a name such as \"silu\", got " << config["hidden_act"].dump());
    act = config["hidden_act"].get<std::string>();
  }
  EMBPRIV_CHECK(act == "silu", source << ": unsupported hidden_act '" << act << "' (supported: silu)");
  c.vocab_size = required_size(config, "vocab_size", source);
  c.hidden_size = required_size(config, "hidden_size", source);
  c.intermediate_size = required_size(config, "intermediate_size", source);
  c.num_hidden_layers = required_size(config, "num_hidden_layers", source);
  c.num_attention_heads = required_size(config, "num_attention_heads", source);
  c.num_key_value_heads = optional_size(config, "num_key_value_heads", c.num_attention_heads, source);
  // Qwen3Config's head_dim defaults to 128; the others' to hidden_size / num_attention_heads.
  c.head_dim = optional_size(config, "head_dim", qwen3 ? 128 : c.hidden_size / c.num_attention_heads, source);
  EMBPRIV_CHECK(qwen3 || config.contains("head_dim") || c.hidden_size % c.num_attention_heads == 0,
                source << ": 'hidden_size' " << c.hidden_size << " is not a multiple of 'num_attention_heads' "
                       << c.num_attention_heads);
  EMBPRIV_CHECK(c.num_attention_heads % c.num_key_value_heads == 0,
                source << ": 'num_attention_heads' " << c.num_attention_heads
                       << " is not a multiple of 'num_key_value_heads' " << c.num_key_value_heads);
  EMBPRIV_CHECK(c.head_dim % 2 == 0, source << ": 'head_dim' must be even for rotary embeddings, got " << c.head_dim);
  c.max_position_embeddings =
      optional_size(config, "max_position_embeddings", llama ? 2048 : mistral ? 131072 : 32768, source);
  c.rms_norm_eps = optional_positive(config, "rms_norm_eps", 1e-6, source);
  c.rope_theta = optional_positive(config, "rope_theta", 10000, source);
  // RoPE's frequencies are rope_theta^(-2i / head_dim) (Su et al., RoFormer, eq. 15): a base at
  // or below 1 makes them grow with i, and one as small as 1e-300 overflows them to Inf.
  EMBPRIV_CHECK(c.rope_theta > 1 && std::isfinite(c.rope_theta),
                source << ": 'rope_theta' must be a finite number > 1, got " << config["rope_theta"].dump());
  c.rope_scaling = parse_rope_scaling(config, source);
  c.tie_word_embeddings = optional_flag(config, "tie_word_embeddings", false, source);
  if (config.contains("bos_token_id") && !config["bos_token_id"].is_null()) {
    const json& bos = config["bos_token_id"];
    EMBPRIV_CHECK(bos.is_number_integer() && bos.get<std::int64_t>() >= 0 && bos.get<std::int64_t>() < c.vocab_size,
                  source << ": 'bos_token_id' must be a token id in [0, " << c.vocab_size << "), got " << bos.dump());
    c.bos_token_id = bos.get<std::int64_t>();
  }
  const bool attention_bias = optional_flag(config, "attention_bias", false, source);
  c.qkv_bias = qwen2 || ((llama || qwen3) && attention_bias);  // Qwen2Attention: q/k/v bias=True, o_proj none
  c.o_bias = (llama || qwen3) && attention_bias;
  c.mlp_bias = llama && optional_flag(config, "mlp_bias", false, source);
  c.qk_norm = qwen3;
  if (mistral) c.sliding_window = optional_size(config, "sliding_window", 0, source);
  if (qwen2 || qwen3) {
    EMBPRIV_CHECK(!optional_flag(config, "use_sliding_window", false, source),
                  source << ": unsupported 'use_sliding_window' true (per-layer sliding windows)");
  }
  return c;
}

HfDecoderConfig read_hf_decoder_config(const std::string& folder) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(folder) / "config.json";
  std::error_code error;
  EMBPRIV_CHECK(fs::is_directory(folder, error), "'" << folder << "' is not a model folder");
  const fs::file_status status = fs::status(path, error);
  EMBPRIV_CHECK(status.type() != fs::file_type::not_found, "model folder '" << folder << "' has no config.json");
  EMBPRIV_CHECK(!error, "cannot read '" << path.string() << "': " << error.message());
  // A folder or FIFO named config.json: std::ifstream would throw an underflow error or block.
  EMBPRIV_CHECK(fs::is_regular_file(status), "'" << path.string() << "' is not a regular file");
  std::ifstream in(path);
  EMBPRIV_CHECK(in, "model folder '" << folder << "' has no readable config.json");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_hf_decoder_config(text.str(), path.string());
}

}  // namespace embpriv
