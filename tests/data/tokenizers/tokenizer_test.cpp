// load_tokenizer(): a tokenizer.json, a model folder, or a llama2.c .bin behind one interface.
#include "tests/catch.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/tokenizers/llama2c_tokenizer.h"
#include "data/tokenizers/llama2c_tokenizer_adapter.h"
#include "data/tokenizers/tokenizer.h"
#include "tests/data/tokenizers/hf_reference.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("load_tokenizer reads a llama2.c .bin with its size from the file, as Llama2cTokenizer does", "[data][tokenizer]") {
  CHECK(llama2c_tokenizer_file_size(stories260k_tokenizer()) == 512);
  const std::unique_ptr<Tokenizer> t = load_tokenizer(stories260k_tokenizer());
  const Llama2cTokenizer direct = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  CHECK(t->size() == 512);
  for (const std::string text : {"Once upon a time, there was a little girl.", "naïve 🙂", ""}) {
    CHECK(t->encode(text, true) == direct.encode(text, true, false));
    CHECK(t->encode(text, false) == direct.encode(text, false, false));
    CHECK(t->decode(t->encode(text, false)) == text);  // the dummy-prefix space dropped without BOS too
    CHECK(t->decode(t->encode(text, true)) == text);
  }
  CHECK(t->is_special(1));
  // A file cut inside a token record.
  TempDir dir("embpriv_tokenizer_load_test");
  std::ifstream in(stories260k_tokenizer(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write_file(dir / "cut.bin", bytes.substr(0, bytes.size() - 3));
  CHECK_THROWS_WITH(load_tokenizer(dir / "cut.bin"), Contains("cut.bin is truncated"));
}

TEST_CASE("load_tokenizer reads a tokenizer.json or a model folder holding one", "[data][tokenizer]") {
  TempDir dir("embpriv_tokenizer_folder_test");
  fs::create_directories(dir / "model");
  fs::copy_file(reference_tokenizer_json("gpt2"), dir / "model/tokenizer.json");
  const std::unique_ptr<Tokenizer> from_folder = load_tokenizer(dir / "model");
  const std::unique_ptr<Tokenizer> from_file = load_tokenizer(dir / "model/tokenizer.json");
  CHECK(from_folder->encode("Hello world", false) == std::vector<std::int64_t>{15496, 995});
  CHECK(from_file->encode("Hello world", false) == std::vector<std::int64_t>{15496, 995});
  CHECK(from_file->size() == 50257);
  fs::create_directories(dir / "empty");
  CHECK_THROWS_WITH(load_tokenizer(dir / "empty"), Contains("holds no tokenizer.json"));
  CHECK_THROWS_WITH(load_tokenizer(dir / "nothing.json"), Contains("does not exist"));
  write_file(dir / "tokenizer.model", "\x0a\x0b<unk>");
  CHECK_THROWS_WITH(load_tokenizer(dir / "tokenizer.model"), Contains("looks like a SentencePiece .model"));
}
