#include "data/corpora/sentiment_corpus.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace embpriv {

std::vector<LabelledSentence> load_sentiment_sentences(const std::string& path) {
  // A folder opens as a file but its first read throws basic_filebuf's underflow error.
  std::error_code error;
  EMBPRIV_CHECK(!std::filesystem::is_directory(path, error),
                "sentiment sentences '" << path << "' is a folder, not a JSON file");
  std::ifstream in(path);
  EMBPRIV_CHECK(in, "cannot read sentiment sentences '" << path << "'");
  nlohmann::json document;
  try {
    in >> document;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": malformed JSON: " + e.what());
  }
  EMBPRIV_CHECK(document.is_array(), path << ": expected a JSON array of {\"text\", \"class\"}");
  std::vector<LabelledSentence> sentences;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const auto& entry = document[i];
    EMBPRIV_CHECK(entry.is_object() && entry.contains("text") && entry["text"].is_string() &&
                      entry.contains("class"),
                  path << ": entry " << i << " is not {\"text\": ..., \"class\": ...}");
    if (entry["class"].is_null()) continue;  // one unlabelled row per file (data README)
    EMBPRIV_CHECK(entry["class"].is_number_integer() &&
                      (entry["class"] == 0 || entry["class"] == 1),
                  path << ": entry " << i << " has class " << entry["class"].dump() << ", not 0 or 1");
    sentences.push_back({entry["text"].get<std::string>(), entry["class"].get<int>()});
  }
  // An empty file would fail every row that reads it; refuse it when it is loaded, before them.
  EMBPRIV_CHECK(!sentences.empty(), path << " holds no labelled sentence");
  return sentences;
}

}  // namespace embpriv
