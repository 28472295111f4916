#include "data/tokenizer.h"

#include <filesystem>

#include "core/error.h"
#include "data/hf_tokenizer.h"
#include "data/llama2c_tokenizer_adapter.h"

namespace embpriv {

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path) {
  namespace fs = std::filesystem;
  EMBPRIV_CHECK(fs::exists(path), "tokenizer '" << path << "' does not exist");
  if (fs::is_directory(path)) {
    const fs::path json = fs::path(path) / "tokenizer.json";
    EMBPRIV_CHECK(fs::exists(json), "the folder '" << path << "' holds no tokenizer.json");
    return std::make_unique<HfTokenizer>(HfTokenizer::load(json.string()));
  }
  const fs::path extension = fs::path(path).extension();
  if (extension == ".json") return std::make_unique<HfTokenizer>(HfTokenizer::load(path));
  EMBPRIV_CHECK(extension != ".model", "'" << path << "' looks like a SentencePiece .model, which embpriv does not read; "
                                           "give the model's tokenizer.json (or its folder) instead");
  return std::make_unique<Llama2cTokenizerAdapter>(
      Llama2cTokenizer::load(path, llama2c_tokenizer_file_size(path)));
}

}  // namespace embpriv
