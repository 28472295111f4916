#pragma once
// What a Hugging Face tokenizer.json declares (the `tokenizers` library's serialisation), read
// into plain steps: added tokens, normalizer, pre-tokenizer, BPE model, post-processor template
// and decoder. Only the kinds byte-level BPE (GPT-2, Llama-3, Qwen2) and SentencePiece-style
// BPE (Llama-2, TinyLlama) use are accepted; any other kind is refused by name.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/bpe_merge.h"
#include "data/pretokenizer_regex.h"

namespace embpriv {

struct HfAddedToken {
  std::int64_t id = 0;
  std::string content;
  bool special = false, lstrip = false, rstrip = false, single_word = false;
};

struct HfNormalizerStep {
  enum Kind { prepend, replace, nfc } kind;
  std::string text, replacement;  // prepend: text; replace: text -> replacement
};

// Metaspace's prepend_scheme: when the replacement character is put before a stretch of text.
enum class HfPrepend { always, first, never };  // first: only before the text's first stretch

struct HfPreTokenizerStep {
  enum Kind { split, byte_level, metaspace } kind;
  SplitPattern pattern = SplitPattern::gpt2;  // split (and byte_level with use_regex)
  bool use_regex = false, add_prefix_space = false;  // byte_level
  std::string replacement;                            // metaspace: spaces become it ("▁")
  HfPrepend prepend = HfPrepend::always;              // metaspace
  bool split_words = false;                           // metaspace: a word starts at each replacement
};

struct HfDecoderStep {
  enum Kind { replace, byte_fallback, fuse, strip, byte_level, metaspace } kind;
  std::string text, replacement;  // replace: text -> replacement; strip: text (one character);
                                  // metaspace: text, the replacement character
  int start = 0, stop = 0;        // strip: characters removed at each end of each token
  HfPrepend prepend = HfPrepend::always;  // metaspace: never keeps the first token's space
};

struct HfBpeModel {
  std::unordered_map<std::string, std::int64_t> ids;
  std::vector<std::string> pieces;  // by id (added tokens included)
  MergeTable merges;
  std::int64_t unk = -1;  // -1: none
  bool byte_fallback = false, fuse_unk = false, ignore_merges = false;
};

struct HfTokenizerSpec {
  std::vector<HfAddedToken> added;
  std::vector<HfNormalizerStep> normalizer;
  std::vector<HfPreTokenizerStep> pre_tokenizer;
  HfBpeModel model;
  // TemplateProcessing's single-sequence template: ids, with -1 marking the text's place.
  std::vector<std::int64_t> template_single = {-1};
  std::vector<HfDecoderStep> decoder;
};

// Reads tokenizer.json; throws embpriv::Error naming the file and the problem (malformed or
// truncated JSON, an unknown model/normalizer/pre-tokenizer/decoder/post-processor type, a
// merge naming a token not in the vocabulary, ...).
HfTokenizerSpec read_hf_tokenizer_json(const std::string& path);

}  // namespace embpriv
