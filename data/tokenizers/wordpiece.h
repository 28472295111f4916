#pragma once
// BERT's tokenizer.json pieces, as the `tokenizers` library defines them: the WordPiece model
// (models/wordpiece: greedy longest-match-first with a continuing-subword prefix "##", the unk
// token for a word longer than max_input_chars_per_word or one no pieces spell), BertNormalizer
// (normalizers/bert.rs: clean_text, handle_chinese_chars, strip_accents, lowercase) and the
// standalone NFD, Lowercase and StripAccents normalizers, BertPreTokenizer (whitespace removed,
// punctuation isolated), the WordPiece decoder, and the BertProcessing/RobertaProcessing
// post-processors ([CLS] text [SEP], <s> text </s>). data/tokenizers/hf_tokenizer.cpp applies them in the
// order of its pipeline; the readers here turn the JSON into data/tokenizers/hf_tokenizer_json.h's steps.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "data/tokenizers/hf_json_reader.h"
#include "data/tokenizers/hf_tokenizer_json.h"

namespace embpriv {

// The WordPiece model on one pre-tokenized word: its pieces' ids appended to `out` (the first
// piece as is, the others with the prefix), or the unk id alone when the word has more than
// max_input_chars_per_word code points or no sequence of pieces spells it.
void wordpiece_encode_word(const HfBpeModel& vocabulary, const HfWordPiece& options, const std::string& word,
                           std::vector<std::int64_t>& out);

// BertNormalizer on valid UTF-8 text, steps in the library's order: clean_text (drop U+0000,
// U+FFFD and control characters; whitespace becomes a space), handle_chinese_chars (a space each
// side of a CJK ideograph), strip_accents (NFD, then drop nonspacing marks), lowercase.
std::string bert_normalize(const HfBertNormalizer& options, const std::string& text);
// The standalone normalizers: NFD, Lowercase (Rust's char::to_lowercase), StripAccents (drop
// every combining mark, Mn Mc Me; it does not decompose: an NFD step comes first in practice).
std::string nfd_text(const std::string& text);
std::string lowercase_text(const std::string& text);
std::string strip_combining_marks(const std::string& text);

// BertPreTokenizer: split on White_Space (removed) and on punctuation (each punctuation character
// a word of its own).
std::vector<std::string> bert_pre_tokenize(const std::string& text);

// The WordPiece decoder's tokens: every token after the first loses the prefix it starts with or
// gains a leading space; with cleanup, the spaces before punctuation and contractions go
// (" ." -> ".", " n't" -> "n't", ...).
std::vector<std::string> wordpiece_decode(const std::string& prefix, bool cleanup, std::vector<std::string> tokens);

// Readers of the tokenizer.json parts (errors name the file through `r`).
HfBertNormalizer read_bert_normalizer(const HfJsonReader& r, const nlohmann::json& normalizer);
// A WordPiece model's options (continuing_subword_prefix, max_input_chars_per_word).
HfWordPiece read_wordpiece_options(const HfJsonReader& r, const nlohmann::json& model);
// The WordPiece model's vocabulary as a BPE model without merges: the same {token: id} object and
// unk_token (default "[UNK]"), so one reader checks the ids of both kinds of model.
nlohmann::json wordpiece_vocabulary_as_bpe(const HfJsonReader& r, const nlohmann::json& model);
// BertProcessing / RobertaProcessing {"cls": [token, id], "sep": [token, id]}: the single-sequence
// template [cls, text (-1), sep]; ids must lie in [0, vocabulary_size).
std::vector<std::int64_t> read_bert_processing(const HfJsonReader& r, const nlohmann::json& processor,
                                               std::int64_t vocabulary_size);

}  // namespace embpriv
