// The llama2.c tokenizer on the real tok512.bin: round trips, byte fallback, agreement with the
// model's own tokens, and broken files.
#include "tests/catch.h"
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/tokenizers/llama2c_tokenizer.h"
#include "models/llama2c_model.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A llama2.c tokenizer file with the given pieces (score -id each), as run.c reads it.
void write_tokenizer(const std::string& path, const std::vector<std::string>& pieces) {
  std::ofstream out(path, std::ios::binary);
  const std::int32_t max_length = 16;
  out.write(reinterpret_cast<const char*>(&max_length), 4);
  for (std::size_t id = 0; id < pieces.size(); ++id) {
    const float score = -static_cast<float>(id);
    const auto length = static_cast<std::int32_t>(pieces[id].size());
    out.write(reinterpret_cast<const char*>(&score), 4);
    out.write(reinterpret_cast<const char*>(&length), 4);
    out.write(pieces[id].data(), length);
  }
}

// <unk>, <s>, </s>, the 256 byte tokens <0x00>..<0xFF>, then `extra`.
std::vector<std::string> pieces_with_bytes(const std::vector<std::string>& extra) {
  std::vector<std::string> pieces = {"<unk>", "\n<s>\n", "\n</s>\n"};
  for (int byte = 0; byte < 256; ++byte) {
    char piece[7];
    std::snprintf(piece, sizeof piece, "<0x%02X>", byte);
    pieces.push_back(piece);
  }
  pieces.insert(pieces.end(), extra.begin(), extra.end());
  return pieces;
}

}  // namespace

TEST_CASE("a tokenizer without the 256 byte tokens at ids 3..258 is refused at load", "[data]") {
  TempDir dir("embpriv_tok_bytes_test");
  // 8 tokens: encoding any character that is not a piece would read token byte + 3 (up to 258)
  // past the vocabulary.
  write_tokenizer(dir / "small.bin", {"<unk>", "\n<s>\n", "\n</s>\n", " ", "a", "b", " a", "ab"});
  CHECK_THROWS_WITH(Llama2cTokenizer::load(dir / "small.bin", 8),
                    Contains("small.bin: a llama2.c tokenizer needs at least 259 tokens (<unk>, <s>, </s> and "
                             "the 256 byte tokens <0x00>..<0xFF>), got 8"));
  // 258 tokens: one byte token short.
  std::vector<std::string> short_by_one = pieces_with_bytes({});
  short_by_one.pop_back();
  write_tokenizer(dir / "258.bin", short_by_one);
  CHECK_THROWS_WITH(Llama2cTokenizer::load(dir / "258.bin", 258), Contains("needs at least 259 tokens"));
  // Enough tokens, but id 3 + 0x41 is not <0x41>: the fallback would spell 'A' as "A?".
  std::vector<std::string> wrong_byte = pieces_with_bytes({" ", "x"});
  wrong_byte[3 + 0x41] = "A?";
  write_tokenizer(dir / "wrong.bin", wrong_byte);
  CHECK_THROWS_WITH(Llama2cTokenizer::load(dir / "wrong.bin", 261),
                    Contains("token 68 must be the byte token <0x41> (run.c's byte fallback), got 'A?'"));
  // The smallest valid tokenizer spells every other character as bytes.
  write_tokenizer(dir / "bytes.bin", pieces_with_bytes({" ", "x"}));
  const Llama2cTokenizer t = Llama2cTokenizer::load(dir / "bytes.bin", 261);
  CHECK(t.encode("xy\xc3\xa9", false) == std::vector<std::int64_t>{259, 260, 'y' + 3, 0xc3 + 3, 0xa9 + 3});
  CHECK(t.decode(t.encode("xy\xc3\xa9")) == "xy\xc3\xa9");
}

TEST_CASE("text -> ids -> text round trips, with byte fallback", "[data]") {
  const Llama2cTokenizer t = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  CHECK(t.size() == 512);
  CHECK(t.piece(1) == "\n<s>\n");
  CHECK(t.piece(3) == "<0x00>");
  for (const std::string text : {"Once upon a time, there was a little girl named Lily.",
                                 "Tim's dog ran to the park!  Two spaces, tabs\tand\nnewlines.",
                                 "Caf\xc3\xa9 \xe2\x82\xac 42 \xf0\x9f\x98\x80 \xe4\xb8\xad",  // é € 😀 中
                                 "x", ""}) {
    INFO(text);
    const std::vector<std::int64_t> ids = t.encode(text);
    CHECK(ids.front() == Llama2cTokenizer::kBos);
    CHECK(t.decode(ids) == text);
    CHECK(t.decode_pieces(ids) == (text.empty() ? "" : " " + text));  // the dummy prefix
  }
  // Characters that are no piece are spelled as bytes (<0xXX> = byte + 3).
  // (tok512 has pieces for e, n with accents and the euro sign, none for the emoji.)
  const std::vector<std::int64_t> emoji = t.encode("\xf0\x9f\x98\x80", false);
  CHECK(emoji == std::vector<std::int64_t>{t.encode(" ", false)[0], 0xf0 + 3, 0x9f + 3, 0x98 + 3, 0x80 + 3});
  // Merging leaves fewer tokens than characters for ordinary words.
  CHECK(t.encode("happy happy happy").size() < 10);
  CHECK(t.encode("a", true, true).back() == Llama2cTokenizer::kEos);
}

TEST_CASE("the tokenizer splits text as the model was trained to read it", "[data][models]") {
  const Llama2cTokenizer t = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  const Llama2cModel model(load_llama2c_checkpoint(stories260k_checkpoint()));
  // The model's own greedy story from <s>, re-encoded from its text, gives the model's tokens.
  const std::vector<std::int64_t> generated = model.generate_greedy({Llama2cTokenizer::kBos}, 14);
  const std::string text = t.decode(generated);
  INFO(text);
  const std::vector<std::int64_t> encoded = t.encode(text);
  CHECK(std::vector<std::int64_t>(generated.begin(), generated.begin() + static_cast<std::ptrdiff_t>(encoded.size())) == encoded);
}

TEST_CASE("broken tokenizer files give one clear error", "[data]") {
  const fs::path dir = fs::temp_directory_path() / ("embpriv_tok_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(stories260k_tokenizer(), dir / "cut.bin");
  fs::resize_file(dir / "cut.bin", 3000);
  CHECK_THROWS_WITH(Llama2cTokenizer::load((dir / "cut.bin").string(), 512), Contains("is truncated"));
  CHECK_THROWS_WITH(Llama2cTokenizer::load((dir / "missing.bin").string(), 512), Contains("cannot read"));
  std::ofstream(dir / "text.bin") << "\xff\xff\xff\xff garbage";
  CHECK_THROWS_WITH(Llama2cTokenizer::load((dir / "text.bin").string(), 512), Contains("not a llama2.c tokenizer"));
  const Llama2cTokenizer t = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  CHECK_THROWS_WITH(t.piece(512), Contains("outside [0, 512)"));
  fs::remove_all(dir);
}
