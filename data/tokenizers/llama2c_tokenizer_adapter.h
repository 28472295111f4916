#pragma once
// The llama2.c tokenizer (data/tokenizers/llama2c_tokenizer.h) behind the common Tokenizer interface, with
// its vocabulary size read from the file itself.
#include <string>

#include "data/tokenizers/llama2c_tokenizer.h"
#include "data/tokenizers/tokenizer.h"

namespace embpriv {

// The number of tokens a llama2.c tokenizer file holds (records until its end); throws
// embpriv::Error for a file that ends inside a record or is not a tokenizer.
std::int64_t llama2c_tokenizer_file_size(const std::string& path);

class Llama2cTokenizerAdapter : public Tokenizer {
 public:
  explicit Llama2cTokenizerAdapter(Llama2cTokenizer tokenizer) : tokenizer_(std::move(tokenizer)) {}
  // add_special: BOS <s> first, as run.c prompts (no EOS). Invalid UTF-8 is refused, naming the
  // offset, as the tokenizer.json path refuses it (data/tokenizers/hf_tokenizer.h).
  std::vector<std::int64_t> encode(const std::string& text, bool add_special) const override;
  // As SentencePiece prints text: the dummy-prefix space is dropped whether or not BOS leads.
  // Byte tokens that do not spell whole UTF-8 characters become U+FFFD, as the ByteFallback
  // decoder of a tokenizer.json writes them, so the text is always valid UTF-8.
  std::string decode(const std::vector<std::int64_t>& ids) const override;
  std::int64_t size() const override { return tokenizer_.size(); }
  bool is_special(std::int64_t id) const override { return tokenizer_.is_special(id); }
  const Llama2cTokenizer& llama2c() const { return tokenizer_; }

 private:
  Llama2cTokenizer tokenizer_;
};

}  // namespace embpriv
