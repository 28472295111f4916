// data.tokenizer: auto picks the model folder's own tokenizer.json for a Hugging Face folder
// and stories260K's tok512.bin for a llama2.c .bin; a given tokenizer is kept as written.
#include "tests/catch.h"

#include <filesystem>

#include "experiments/types/shared/inversion_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

TEST_CASE("data.tokenizer auto follows data.model: a folder's own tokenizer, else tok512.bin", "[experiments][hf]") {
  TempDir dir("embpriv_tokenizer_for_model");
  std::filesystem::create_directories(dir / "Llama-folder");
  CHECK(tokenizer_for_model(dir / "Llama-folder", "auto") == dir / "Llama-folder");
  CHECK(tokenizer_for_model("tinyllama/stories260K.bin", "auto") == "tinyllama/tok512.bin");
  CHECK(tokenizer_for_model(dir / "missing", "auto") == "tinyllama/tok512.bin");  // the model's own error comes first
  CHECK(tokenizer_for_model(dir / "Llama-folder", "other/tokenizer.json") == "other/tokenizer.json");
}
