#include "data/tokenizers/llama2c_tokenizer_adapter.h"

#include "core/error.h"
#include "data/tokenizers/unicode_categories.h"

namespace embpriv {

// Llama2cTokenizer::load_all counts the records and refuses a file that ends inside one.
std::int64_t llama2c_tokenizer_file_size(const std::string& path) { return Llama2cTokenizer::load_all(path).size(); }

std::vector<std::int64_t> Llama2cTokenizerAdapter::encode(const std::string& text, bool add_special) const {
  utf8_code_points(text);  // refuses invalid UTF-8, naming the offset
  return tokenizer_.encode(text, add_special, false);
}

std::string Llama2cTokenizerAdapter::decode(const std::vector<std::int64_t>& ids) const {
  if (!ids.empty() && ids.front() == Llama2cTokenizer::kBos) return utf8_lossy(tokenizer_.decode(ids));
  std::vector<std::int64_t> with_bos = {Llama2cTokenizer::kBos};
  with_bos.insert(with_bos.end(), ids.begin(), ids.end());
  return utf8_lossy(tokenizer_.decode(with_bos));
}

}  // namespace embpriv
