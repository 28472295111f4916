#pragma once
// A WordPiece tokenizer.json in the layout of bert-base-uncased's (BertNormalizer,
// BertPreTokenizer, WordPiece, BertProcessing: [CLS] text [SEP]) over a test's own pieces, for
// tests that write small BERT folders and tokenizers.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace embpriv {

// `pieces[i]` is id i; the first `specials` are special tokens; [CLS] and [SEP] are ids 2 and 3.
inline nlohmann::json bert_tokenizer_json(const std::vector<std::string>& pieces, int specials) {
  nlohmann::json vocab = nlohmann::json::object();
  for (std::size_t i = 0; i < pieces.size(); ++i) vocab[pieces[i]] = i;
  nlohmann::json added = nlohmann::json::array();
  for (int id = 0; id < specials; ++id) {
    added.push_back({{"id", id}, {"content", pieces[static_cast<std::size_t>(id)]}, {"single_word", false},
                     {"lstrip", false}, {"rstrip", false}, {"normalized", false}, {"special", true}});
  }
  return {{"version", "1.0"},
          {"added_tokens", added},
          {"normalizer", {{"type", "BertNormalizer"}, {"clean_text", true}, {"handle_chinese_chars", true},
                          {"strip_accents", nullptr}, {"lowercase", true}}},
          {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
          {"post_processor", {{"type", "BertProcessing"}, {"sep", {"[SEP]", 3}}, {"cls", {"[CLS]", 2}}}},
          {"decoder", {{"type", "WordPiece"}, {"prefix", "##"}, {"cleanup", true}}},
          {"model", {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
                     {"max_input_chars_per_word", 100}, {"vocab", vocab}}}};
}

}  // namespace embpriv
