#pragma once
// What a Hugging Face tokenizer.json declares (the `tokenizers` library's serialisation), read
// into plain steps: added tokens, normalizer, pre-tokenizer, BPE model, post-processor template
// and decoder. Only the kinds byte-level BPE (GPT-2, Llama-3, Qwen2, RoBERTa), SentencePiece-style
// BPE (Llama-2, TinyLlama) and WordPiece (BERT; data/tokenizers/wordpiece.h) use are accepted; any other kind
// is refused by name.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/tokenizers/bpe_merge.h"
#include "data/tokenizers/pretokenizer_regex.h"

namespace embpriv {

struct HfAddedToken {
  std::int64_t id = 0;
  std::string content;
  bool special = false, lstrip = false, rstrip = false, single_word = false;
};

// BertNormalizer's switches (strip_accents null in the file: the value of lowercase).
struct HfBertNormalizer {
  bool clean_text = true, handle_chinese_chars = true, strip_accents = true, lowercase = true;
};

struct HfNormalizerStep {
  enum Kind { prepend, replace, nfc, bert, nfd, lowercase, strip_accents } kind;
  std::string text, replacement;  // prepend: text; replace: text -> replacement
  HfBertNormalizer bert_options{};  // bert
};

// Metaspace's prepend_scheme: when the replacement character is put before a stretch of text.
enum class HfPrepend { always, first, never };  // first: only before the text's first stretch

struct HfPreTokenizerStep {
  enum Kind { split, byte_level, metaspace, bert } kind;  // bert: BertPreTokenizer
  SplitPattern pattern = SplitPattern::gpt2;  // split (and byte_level with use_regex)
  bool use_regex = false, add_prefix_space = false;  // byte_level
  std::string replacement;                            // metaspace: spaces become it ("▁")
  HfPrepend prepend = HfPrepend::always;              // metaspace
  bool split_words = false;                           // metaspace: a word starts at each replacement
};

struct HfDecoderStep {
  enum Kind { replace, byte_fallback, fuse, strip, byte_level, metaspace, wordpiece } kind;
  std::string text, replacement;  // replace: text -> replacement; strip: text (one character);
                                  // metaspace: text, the replacement character; wordpiece: text,
                                  // the continuing-subword prefix
  int start = 0, stop = 0;        // strip: characters removed at each end of each token
  HfPrepend prepend = HfPrepend::always;  // metaspace: never keeps the first token's space
  bool cleanup = false;                   // wordpiece: undo the spaces before punctuation
};

struct HfBpeModel {
  std::unordered_map<std::string, std::int64_t> ids;
  std::vector<std::string> pieces;  // by id (added tokens included)
  MergeTable merges;
  std::int64_t unk = -1;  // -1: none
  bool byte_fallback = false, fuse_unk = false, ignore_merges = false;
};

// A WordPiece model (BERT): its vocabulary and unk_token are read into HfBpeModel's ids, pieces
// and unk (without merges); words are split greedily longest-match-first (data/tokenizers/wordpiece.h).
struct HfWordPiece {
  bool enabled = false;
  std::string prefix = "##";                    // continuing_subword_prefix
  std::int64_t max_input_chars_per_word = 100;  // longer words become the unk token
};

struct HfTokenizerSpec {
  std::vector<HfAddedToken> added;
  std::vector<HfNormalizerStep> normalizer;
  std::vector<HfPreTokenizerStep> pre_tokenizer;
  HfBpeModel model;
  HfWordPiece wordpiece;
  // TemplateProcessing's single-sequence template: ids, with -1 marking the text's place.
  std::vector<std::int64_t> template_single = {-1};
  std::vector<HfDecoderStep> decoder;
};

// Reads tokenizer.json; throws embpriv::Error naming the file and the problem (malformed or
// truncated JSON, an unknown model/normalizer/pre-tokenizer/decoder/post-processor type, a
// merge naming a token not in the vocabulary, ...).
HfTokenizerSpec read_hf_tokenizer_json(const std::string& path);

}  // namespace embpriv
