#include "data/tokenizers/tokenizer.h"

#include <filesystem>

#include "core/error.h"
#include "data/tokenizers/hf_tokenizer.h"
#include "data/tokenizers/llama2c_tokenizer_adapter.h"

namespace embpriv {

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path) {
  namespace fs = std::filesystem;
  // A symbolic-link loop, a 300-character name or too long a path is refused naming the path
  // (fs::exists would throw a filesystem_error, reported as an internal error).
  const auto status_of = [](const fs::path& p) {
    std::error_code error;
    const fs::file_status status = fs::status(p, error);
    EMBPRIV_CHECK(!error || status.type() == fs::file_type::not_found,
                  "cannot read the tokenizer '" << p.string() << "': " << error.message());
    return status;
  };
  const fs::file_status status = status_of(path);
  EMBPRIV_CHECK(fs::exists(status), "tokenizer '" << path << "' does not exist");
  if (fs::is_directory(status)) {
    const fs::path json = fs::path(path) / "tokenizer.json";
    const fs::file_status json_status = status_of(json);
    EMBPRIV_CHECK(fs::exists(json_status), "the folder '" << path << "' holds no tokenizer.json");
    EMBPRIV_CHECK(!fs::is_directory(json_status), "'" << json.string() << "' is a folder, not a tokenizer.json");
    return std::make_unique<HfTokenizer>(HfTokenizer::load(json.string()));
  }
  const fs::path extension = fs::path(path).extension();
  if (extension == ".json") return std::make_unique<HfTokenizer>(HfTokenizer::load(path));
  EMBPRIV_CHECK(extension != ".model", "'" << path << "' looks like a SentencePiece .model, which embpriv does not read; "
                                           "give the model's tokenizer.json (or its folder) instead");
  // Every token of the file, read once: a pipe (<(cat tok512.bin)) cannot be read twice.
  return std::make_unique<Llama2cTokenizerAdapter>(Llama2cTokenizer::load_all(path));
}

}  // namespace embpriv
