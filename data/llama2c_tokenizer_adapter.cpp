#include "data/llama2c_tokenizer_adapter.h"

#include <fstream>

#include "core/error.h"
#include "data/unicode_categories.h"

namespace embpriv {

std::int64_t llama2c_tokenizer_file_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read llama2.c tokenizer '" << path << "'");
  std::int32_t max_length = 0;
  in.read(reinterpret_cast<char*>(&max_length), 4);
  EMBPRIV_CHECK(in && max_length > 0 && max_length < (1 << 16),
                path << ": not a llama2.c tokenizer (max_token_length " << max_length << ")");
  std::int64_t count = 0;
  while (in.peek() != std::char_traits<char>::eof()) {
    float score = 0;
    std::int32_t length = 0;
    in.read(reinterpret_cast<char*>(&score), 4);
    in.read(reinterpret_cast<char*>(&length), 4);
    EMBPRIV_CHECK(in && length >= 0 && length <= max_length,
                  path << " is truncated or malformed at token " << count);
    in.seekg(length, std::ios::cur);
    EMBPRIV_CHECK(in, path << " is truncated: it ends inside token " << count);
    ++count;
  }
  return count;
}

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
