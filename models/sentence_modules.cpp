#include "models/sentence_modules.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "models/hf_checkpoint.h"

namespace embpriv {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json read_json(const std::string& path) {
  try {
    return json::parse(read_model_folder_file(path));
  } catch (const json::exception& e) {
    throw Error(path + ": malformed JSON: " + e.what());
  }
}

bool flag(const json& c, const char* key, const std::string& source) {
  if (!c.contains(key) || c[key].is_null()) return false;
  EMBPRIV_CHECK(c[key].is_boolean(), source << ": '" << key << "' must be true or false, got " << c[key].dump());
  return c[key].get<bool>();
}

// "sentence_transformers.models.Pooling" -> "Pooling" (the module's class, whatever its package).
std::string class_name(const std::string& type) {
  const std::size_t dot = type.rfind('.');
  return dot == std::string::npos ? type : type.substr(dot + 1);
}

}  // namespace

EncoderPooling read_pooling_config(const std::string& path, std::int64_t hidden_size) {
  const json config = read_json(path);
  EMBPRIV_CHECK(config.is_object(), path << " must be a JSON object");
  if (config.contains("word_embedding_dimension") && !config["word_embedding_dimension"].is_null()) {
    EMBPRIV_CHECK(config["word_embedding_dimension"] == hidden_size,
                  path << ": 'word_embedding_dimension' " << config["word_embedding_dimension"].dump()
                       << " disagrees with the model's hidden_size " << hidden_size);
  }
  for (const char* key : {"pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"}) {
    EMBPRIV_CHECK(!flag(config, key, path), path << ": unsupported '" << key << "' true (supported: "
                                                 << "pooling_mode_cls_token, pooling_mode_mean_tokens, "
                                                    "pooling_mode_max_tokens)");
  }
  const std::pair<const char*, EncoderPooling> known[] = {{"pooling_mode_cls_token", EncoderPooling::cls},
                                                          {"pooling_mode_mean_tokens", EncoderPooling::mean},
                                                          {"pooling_mode_max_tokens", EncoderPooling::max}};
  int chosen = 0;
  EncoderPooling pooling = EncoderPooling::mean;
  for (const auto& [key, mode] : known) {
    if (flag(config, key, path)) {
      ++chosen;
      pooling = mode;
    }
  }
  EMBPRIV_CHECK(chosen == 1, path << ": exactly one of pooling_mode_cls_token, pooling_mode_mean_tokens, "
                                     "pooling_mode_max_tokens must be true, got "
                                  << chosen << " (sentence-transformers concatenates several; embpriv does not)");
  return pooling;
}

SentenceModules read_sentence_modules(const std::string& folder, std::int64_t hidden_size) {
  SentenceModules modules;
  const fs::path list = fs::path(folder) / "modules.json";
  if (!fs::exists(list)) {
    const fs::path pooling = fs::path(folder) / "1_Pooling" / "config.json";
    if (fs::exists(pooling)) modules.pooling = read_pooling_config(pooling.string(), hidden_size);
    return modules;
  }
  const std::string source = list.string();
  const json entries = read_json(source);
  EMBPRIV_CHECK(entries.is_array(), source << " must be a JSON list of modules");
  const char* const supported = " (supported: Transformer, then Pooling, then an optional Normalize)";
  // SentenceTransformer runs the modules in the list's order: Transformer, Pooling, [Normalize].
  const char* const expected[] = {"Transformer", "Pooling", "Normalize"};
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const json& m = entries[i];
    EMBPRIV_CHECK(m.is_object() && m.contains("type") && m["type"].is_string(),
                  source << ": module " << i << " has no 'type'");
    const std::string type = m["type"].get<std::string>();
    const std::string path = m.contains("path") && m["path"].is_string() ? m["path"].get<std::string>() : "";
    EMBPRIV_CHECK(i < 3 && class_name(type) == expected[i],
                  source << ": module " << i << " is " << type << ", which embpriv does not compute there" << supported);
    if (i == 0) {
      EMBPRIV_CHECK(path.empty() || path == ".", source << ": the Transformer module lives in '" << path
                                                        << "'; embpriv reads the model at the folder's root");
    } else if (i == 1) {
      EMBPRIV_CHECK(!path.empty(), source << ": the Pooling module has no 'path'");
      // sentence-transformers saves each module in a folder of its own beside modules.json; a
      // path that leaves the folder is refused as the shard index's (hf_checkpoint.h).
      EMBPRIV_CHECK(is_model_folder_entry(path),
                    source << ": the Pooling module's path '" << path << "' is not a folder inside the model folder");
      modules.pooling = read_pooling_config((fs::path(folder) / path / "config.json").string(), hidden_size);
    } else {
      modules.normalize = true;
    }
  }
  EMBPRIV_CHECK(entries.size() >= 2, source << ": no Pooling module (a sentence vector needs one)" << supported);
  return modules;
}

void write_sentence_modules(const std::string& folder, const SentenceModules& modules, std::int64_t hidden_size) {
  const fs::path root(folder);
  fs::create_directories(root / "1_Pooling");
  std::ofstream(root / "1_Pooling" / "config.json")
      << json{{"word_embedding_dimension", hidden_size},
              {"pooling_mode_cls_token", modules.pooling == EncoderPooling::cls},
              {"pooling_mode_mean_tokens", modules.pooling == EncoderPooling::mean},
              {"pooling_mode_max_tokens", modules.pooling == EncoderPooling::max}}
             .dump(2);
  json list = json::array({{{"idx", 0}, {"name", "0"}, {"path", ""}, {"type", "sentence_transformers.models.Transformer"}},
                           {{"idx", 1}, {"name", "1"}, {"path", "1_Pooling"}, {"type", "sentence_transformers.models.Pooling"}}});
  if (modules.normalize) {
    fs::create_directories(root / "2_Normalize");
    list.push_back({{"idx", 2}, {"name", "2"}, {"path", "2_Normalize"}, {"type", "sentence_transformers.models.Normalize"}});
  }
  std::ofstream(root / "modules.json") << list.dump(2);
}

}  // namespace embpriv
