#include "data/tables/text_inputs.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace embpriv {
namespace {

TextInputs read_json_texts(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json array;
  try {
    array = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    EMBPRIV_CHECK(false, path << " is not JSON: " << e.what());
  }
  EMBPRIV_CHECK(array.is_array(), path << " must be a JSON array of texts or of {\"text\": ...} objects");
  TextInputs out;
  bool every_label = true;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const nlohmann::json& entry = array[i];
    if (entry.is_string()) {
      out.ids.push_back(std::to_string(i));
      out.texts.push_back(entry.get<std::string>());
      every_label = false;
      continue;
    }
    EMBPRIV_CHECK(entry.is_object() && entry.contains("text") && entry["text"].is_string(),
                  path << ": entry " << i << " must be a string or an object with a string \"text\"");
    if (entry.contains("class") && entry["class"].is_null()) continue;  // as load_sentiment_sentences
    const auto id = entry.find("id");
    out.ids.push_back(id == entry.end() ? std::to_string(i) : id->is_string() ? id->get<std::string>() : id->dump());
    out.texts.push_back(entry["text"].get<std::string>());
    const auto label = entry.find("class");
    if (label != entry.end() && label->is_number_integer()) {
      out.labels.push_back(label->get<std::int64_t>());
    } else {
      every_label = false;
    }
  }
  if (!every_label) out.labels.clear();
  return out;
}

}  // namespace

TextInputs read_text_lines(std::istream& in) {
  TextInputs out;
  std::int64_t number = 0;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.ids.push_back(std::to_string(++number));
    out.texts.push_back(std::move(line));
  }
  return out;
}

TextInputs read_text_inputs(const std::string& path) {
  EMBPRIV_CHECK(std::filesystem::is_regular_file(path), "no such text file: " << path);
  if (std::filesystem::path(path).extension() == ".json") return read_json_texts(path);
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read " << path);
  return read_text_lines(in);
}

}  // namespace embpriv
