// config.json of a BERT-family encoder; the defaults are those of transformers' BertConfig,
// RobertaConfig and XLMRobertaConfig for keys a file may leave out.
#include "models/hf_encoder_config.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"

namespace embpriv {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json parse_json(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw Error(source + ": malformed JSON: " + e.what());
  }
  EMBPRIV_CHECK(j.is_object(), source << " must be a JSON object");
  return j;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read '" << path.string() << "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::int64_t size_key(const json& c, const char* key, std::int64_t fallback, bool required, const std::string& source) {
  if (!c.contains(key) || c[key].is_null()) {
    EMBPRIV_CHECK(!required, source << ": missing key '" << key << "'");
    return fallback;
  }
  EMBPRIV_CHECK(c[key].is_number_integer() && c[key].get<std::int64_t>() > 0,
                source << ": '" << key << "' must be a positive integer, got " << c[key].dump());
  return c[key].get<std::int64_t>();
}

bool flag_key(const json& c, const char* key, const std::string& source) {
  if (!c.contains(key) || c[key].is_null()) return false;
  EMBPRIV_CHECK(c[key].is_boolean(), source << ": '" << key << "' must be true or false, got " << c[key].dump());
  return c[key].get<bool>();
}

// The sizes of a config must give a parameter count that int64 and double arithmetic hold
// exactly (hf_encoder_classifier_parameter_count, the memory estimates): at most 2^53 = 9.0e15,
// nearly a million times XLM-RoBERTa XXL's 1.07e10 (Goyal et al. 2021), among the largest
// published encoders. The refusal names the config.json keys of the largest part, computed in
// double so that nothing overflows on the way (hidden_size 2^40 or vocab_size 2^62).
void check_parameter_count(const HfEncoderConfig& c, const std::string& source) {
  constexpr double kMostParameters = 9007199254740992.0;  // 2^53
  const double h = static_cast<double>(c.hidden_size), inter = static_cast<double>(c.intermediate_size);
  const double words = static_cast<double>(c.vocab_size) * h;
  const double layers = static_cast<double>(c.num_hidden_layers) * (4 * h * h + 2 * h * inter);
  const double tables = static_cast<double>(c.max_position_embeddings + c.type_vocab_size) * h;
  if (words + layers + tables <= kMostParameters) return;
  std::ostringstream part;
  if (words >= layers && words >= tables) {
    part << "'vocab_size' " << c.vocab_size << " x 'hidden_size' " << c.hidden_size << " word embeddings";
  } else if (layers >= tables) {
    part << "'num_hidden_layers' " << c.num_hidden_layers << ", 'hidden_size' " << c.hidden_size
         << " and 'intermediate_size' " << c.intermediate_size;
  } else {
    part << "'max_position_embeddings' " << c.max_position_embeddings << " x 'hidden_size' " << c.hidden_size
         << " position embeddings";
  }
  std::ostringstream total;
  total.precision(3);
  total << words + layers + tables;
  throw Error(source + ": " + part.str() + " make a model of " + total.str() +
              " parameters, more than the 2^53 (9.0e15) embpriv counts exactly (XLM-RoBERTa XXL has 1.07e10)");
}

}  // namespace

HfEncoderConfig parse_hf_encoder_config(const std::string& json_text, const std::string& source) {
  const json config = parse_json(json_text, source);
  EMBPRIV_CHECK(config.contains("model_type") && config["model_type"].is_string(), source << ": missing key 'model_type'");
  HfEncoderConfig c;
  c.model_type = config["model_type"].get<std::string>();
  const bool bert = c.model_type == "bert";
  EMBPRIV_CHECK(bert || c.model_type == "roberta" || c.model_type == "xlm-roberta",
                source << ": unsupported model_type '" << c.model_type << "' (supported encoders: bert, roberta, xlm-roberta)");
  // BertConfig's hidden_act "gelu" is the exact (erf) GELU, ACT2FN["gelu"] = GELUActivation.
  if (config.contains("hidden_act") && !config["hidden_act"].is_null()) {
    EMBPRIV_CHECK(config["hidden_act"].is_string() && config["hidden_act"].get<std::string>() == "gelu",
                  source << ": unsupported hidden_act " << config["hidden_act"].dump() << " (supported: \"gelu\", the erf form)");
  }
  if (config.contains("position_embedding_type") && !config["position_embedding_type"].is_null()) {
    EMBPRIV_CHECK(config["position_embedding_type"] == "absolute",
                  source << ": unsupported position_embedding_type " << config["position_embedding_type"].dump()
                         << " (supported: \"absolute\")");
  }
  EMBPRIV_CHECK(!flag_key(config, "is_decoder", source), source << ": unsupported 'is_decoder' true (embpriv reads encoders)");
  EMBPRIV_CHECK(!flag_key(config, "add_cross_attention", source), source << ": unsupported 'add_cross_attention' true");
  c.vocab_size = size_key(config, "vocab_size", 0, true, source);
  c.hidden_size = size_key(config, "hidden_size", 0, true, source);
  c.num_hidden_layers = size_key(config, "num_hidden_layers", 0, true, source);
  c.num_attention_heads = size_key(config, "num_attention_heads", 0, true, source);
  c.intermediate_size = size_key(config, "intermediate_size", 0, true, source);
  EMBPRIV_CHECK(c.hidden_size % c.num_attention_heads == 0,
                source << ": 'hidden_size' " << c.hidden_size << " is not a multiple of 'num_attention_heads' "
                       << c.num_attention_heads);
  c.max_position_embeddings = size_key(config, "max_position_embeddings", 512, false, source);
  c.type_vocab_size = size_key(config, "type_vocab_size", 2, false, source);
  if (config.contains("layer_norm_eps") && !config["layer_norm_eps"].is_null()) {
    EMBPRIV_CHECK(config["layer_norm_eps"].is_number() && config["layer_norm_eps"].get<double>() > 0,
                  source << ": 'layer_norm_eps' must be a positive number, got " << config["layer_norm_eps"].dump());
    c.layer_norm_eps = config["layer_norm_eps"].get<double>();
  }
  if (config.contains("initializer_range") && !config["initializer_range"].is_null()) {
    const json& range = config["initializer_range"];
    EMBPRIV_CHECK(range.is_number() && range.get<double>() > 0 && std::isfinite(range.get<double>()),
                  source << ": 'initializer_range' must be a positive number, got " << range.dump());
    c.initializer_range = range.get<double>();
  }
  // BertConfig's pad_token_id defaults to 0, RobertaConfig's and XLMRobertaConfig's to 1.
  c.pad_token_id = bert ? 0 : 1;
  if (config.contains("pad_token_id") && !config["pad_token_id"].is_null()) {
    const json& pad = config["pad_token_id"];
    EMBPRIV_CHECK(pad.is_number_integer() && pad.get<std::int64_t>() >= 0 && pad.get<std::int64_t>() < c.vocab_size,
                  source << ": 'pad_token_id' must be a token id in [0, " << c.vocab_size << "), got " << pad.dump());
    c.pad_token_id = pad.get<std::int64_t>();
  }
  // RobertaEmbeddings: positions run from pad_token_id + 1, so the table needs that many rows more.
  EMBPRIV_CHECK(bert || c.max_position_embeddings > c.pad_token_id + 1,
                source << ": 'max_position_embeddings' " << c.max_position_embeddings
                       << " leaves no position after 'pad_token_id' " << c.pad_token_id << " + 1");
  check_parameter_count(c, source);
  if (config.contains("architectures") && !config["architectures"].is_null()) {
    const json& a = config["architectures"];
    EMBPRIV_CHECK(a.is_array() && !a.empty() && a[0].is_string(),
                  source << ": 'architectures' must be a list of class names, got " << a.dump());
    const std::string name = a[0].get<std::string>();
    const std::string suffix = "ForSequenceClassification";
    c.sequence_classification = name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    EMBPRIV_CHECK(!c.sequence_classification || name == "BertForSequenceClassification" ||
                      name == "RobertaForSequenceClassification" || name == "XLMRobertaForSequenceClassification",
                  source << ": unsupported architectures[0] '" << name
                         << "' (classification heads: BertForSequenceClassification, RobertaForSequenceClassification, "
                            "XLMRobertaForSequenceClassification)");
  }
  if (c.sequence_classification) {
    // PretrainedConfig: num_labels = len(id2label); config.json omits the default two labels.
    c.num_labels = 2;
    if (config.contains("id2label") && !config["id2label"].is_null()) {
      EMBPRIV_CHECK(config["id2label"].is_object() && !config["id2label"].empty(),
                    source << ": 'id2label' must be an object of label names, got " << config["id2label"].dump());
      c.num_labels = static_cast<std::int64_t>(config["id2label"].size());
    }
    if (config.contains("num_labels") && !config["num_labels"].is_null()) {
      const std::int64_t n = size_key(config, "num_labels", 2, true, source);
      EMBPRIV_CHECK(!config.contains("id2label") || n == c.num_labels,
                    source << ": 'num_labels' " << n << " disagrees with the " << c.num_labels << " labels of 'id2label'");
      c.num_labels = n;
    }
  }
  return c;
}

HfEncoderConfig read_hf_encoder_config(const std::string& folder) {
  EMBPRIV_CHECK(fs::is_directory(folder), "'" << folder << "' is not a model folder");
  const fs::path path = fs::path(folder) / "config.json";
  EMBPRIV_CHECK(fs::exists(path), "model folder '" << folder << "' has no config.json");
  return parse_hf_encoder_config(read_text(path), path.string());
}

EncoderPooling parse_encoder_pooling(const std::string& name) {
  if (name == "cls") return EncoderPooling::cls;
  if (name == "mean") return EncoderPooling::mean;
  if (name == "max") return EncoderPooling::max;
  throw Error("unknown pooling '" + name + "' (known: cls, mean, max)");
}

const char* encoder_pooling_name(EncoderPooling pooling) {
  return pooling == EncoderPooling::cls ? "cls" : pooling == EncoderPooling::mean ? "mean" : "max";
}

HfEncoderConfig hf_encoder_config_of_sizes(const std::string& model_type, const EncoderSizes& sizes,
                                           std::int64_t num_labels) {
  HfEncoderConfig c;
  c.model_type = model_type;
  c.vocab_size = sizes.vocab;
  c.hidden_size = sizes.hidden;
  c.intermediate_size = sizes.feedforward;
  c.num_hidden_layers = sizes.layers;
  c.num_attention_heads = sizes.heads;
  c.max_position_embeddings = sizes.max_positions;
  c.pad_token_id = model_type == "bert" ? 0 : 1;  // as parse_hf_encoder_config defaults it
  c.sequence_classification = num_labels > 0;
  c.num_labels = num_labels;
  return c;
}

HfEncoderParameterCount hf_encoder_classifier_parameter_count(const HfEncoderConfig& c, std::int64_t num_labels) {
  const std::int64_t h = c.hidden_size, inter = c.intermediate_size;
  const std::int64_t layer = 4 * (h * h + h) + (2 * h * inter + inter + h) + 4 * h;
  HfEncoderParameterCount count;
  count.word_embeddings = c.vocab_size * h;
  count.other = (c.max_position_embeddings + c.type_vocab_size) * h + 2 * h + c.num_hidden_layers * layer +
                (h * h + h) + (h * num_labels + num_labels);
  return count;
}

}  // namespace embpriv
