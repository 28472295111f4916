#pragma once
// What the rest of embpriv needs of a tokenizer, whichever file it came from: a Hugging Face
// tokenizer.json (data/tokenizers/hf_tokenizer.h) or a llama2.c tokenizer .bin (data/tokenizers/llama2c_tokenizer.h).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace embpriv {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // The ids of UTF-8 text; add_special: also the special tokens the tokenizer's template adds
  // (Llama's BOS <s>); without it none are added. Invalid UTF-8 is refused.
  virtual std::vector<std::int64_t> encode(const std::string& text, bool add_special) const = 0;
  // The text of ids, special tokens (BOS, EOS, <unk>, ...) dropped; an id outside the
  // vocabulary is refused.
  virtual std::string decode(const std::vector<std::int64_t>& ids) const = 0;
  // Number of ids (the model's vocabulary size).
  virtual std::int64_t size() const = 0;
  virtual bool is_special(std::int64_t id) const = 0;
};

// A tokenizer.json, a Hugging Face model folder holding tokenizer.json, or a llama2.c tokenizer
// .bin (its vocabulary size read from the file). Throws embpriv::Error naming the problem.
std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path);

}  // namespace embpriv
