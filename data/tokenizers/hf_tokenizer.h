#pragma once
// A Hugging Face tokenizer.json BPE tokenizer, applied as the `tokenizers` library does:
// added tokens are cut out of the text first; each other stretch is normalized, pre-tokenized
// into words, and each word is BPE-merged (byte fallback or <unk> for characters not in the
// vocabulary); the post-processor's template adds special tokens; the decoder steps turn
// tokens back into text.
#include <string>
#include <unordered_set>
#include <vector>

#include "data/tokenizers/hf_tokenizer_json.h"
#include "data/tokenizers/tokenizer.h"

namespace embpriv {

class HfTokenizer : public Tokenizer {
 public:
  explicit HfTokenizer(HfTokenizerSpec spec);
  static HfTokenizer load(const std::string& tokenizer_json) { return HfTokenizer(read_hf_tokenizer_json(tokenizer_json)); }

  std::vector<std::int64_t> encode(const std::string& text, bool add_special) const override;
  std::string decode(const std::vector<std::int64_t>& ids) const override;
  std::int64_t size() const override { return static_cast<std::int64_t>(spec_.model.pieces.size()); }
  bool is_special(std::int64_t id) const override { return special_.count(id) > 0; }

 private:
  struct Stretch {
    std::string text;
    std::int64_t added = -1;  // the added token's id, or -1 for text to tokenize
  };
  std::vector<Stretch> split_added_tokens(const std::string& text) const;
  std::string normalize(std::string text) const;
  // at_start: the stretch begins the text (Metaspace's prepend_scheme "first").
  std::vector<std::string> pre_tokenize(const std::string& text, bool at_start) const;
  void encode_word(const std::string& word, std::vector<std::int64_t>& out) const;

  HfTokenizerSpec spec_;
  std::unordered_set<std::int64_t> special_;
  std::vector<std::vector<std::size_t>> added_by_first_byte_;  // longest first
};

}  // namespace embpriv
