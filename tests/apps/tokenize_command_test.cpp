// `embpriv tokenize` as a user runs it: lines in, ids out, and back; bad tokenizers and input
// give one error line and exit 2.
#include "tests/catch.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "data/tokenizers/tokenizer.h"
#include "tests/data/tokenizers/hf_reference.h"
#include "tests/test_binary.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string ids_line(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? " " : "") + std::to_string(ids[i]);
  return s + "\n";
}

const std::vector<std::string> kLines = {"Hello world, it's 2024!", "naïve café 日本語 🙂", "", "  two  spaces "};

}  // namespace

TEST_CASE("embpriv tokenize prints each line's ids and --decode prints the text back", "[apps][tokenizer]") {
  TempDir dir("embpriv_tokenize_cli_test");
  std::string input;
  for (const std::string& line : kLines) input += line + "\n";
  write_file(dir / "in.txt", input);
  for (const std::string& tokenizer : {reference_tokenizer_json("llama2"), reference_tokenizer_json("gpt2"),
                                      stories260k_tokenizer()}) {
    const std::unique_ptr<Tokenizer> t = load_tokenizer(tokenizer);
    std::string expected, expected_special;
    for (const std::string& line : kLines) {
      expected += ids_line(t->encode(line, false));
      expected_special += ids_line(t->encode(line, true));
    }
    const Outcome ids = run_binary("tokenize '" + tokenizer + "' < '" + dir / "in.txt" + "'");
    CHECK(ids.code == 0);
    CHECK(ids.output == expected);
    const Outcome special = run_binary("tokenize '" + tokenizer + "' --special < '" + dir / "in.txt" + "'");
    CHECK(special.output == expected_special);
    write_file(dir / "ids.txt", ids.output);
    const Outcome text = run_binary("tokenize --decode '" + tokenizer + "' < '" + dir / "ids.txt" + "'");
    CHECK(text.code == 0);
    CHECK(text.output == input);
  }
  // Llama's template adds BOS (id 1) only with --special.
  write_file(dir / "hello.txt", "Hello world\n");
  const Outcome bos = run_binary("tokenize --special '" + reference_tokenizer_json("llama2") + "' < '" + dir / "hello.txt" + "'");
  CHECK(bos.output == "1 15043 3186\n");
}

TEST_CASE("embpriv tokenize: bad tokenizers and input give one error line, exit 2", "[apps][tokenizer]") {
  TempDir dir("embpriv_tokenize_cli_bad_test");
  // Runs `embpriv tokenize ARGS` with `input` on stdin.
  const auto one_error = [&](const std::string& args, const std::string& input, const std::string& message) {
    write_file(dir / "stdin.txt", input);
    const Outcome o = run_binary("tokenize " + args + " < '" + dir / "stdin.txt" + "'", Capture::errors);
    CHECK(o.code == 2);
    CHECK_THAT(o.output, StartsWith("embpriv: error: ") && Contains(message));
    CHECK(std::count(o.output.begin(), o.output.end(), '\n') == 1);
  };
  nlohmann::json j = nlohmann::json::parse(R"({"model": {"type": "Unigram", "vocab": []}})");
  write_file(dir / "unigram.json", j.dump());
  one_error("'" + dir / "unigram.json" + "'", "hi\n", "unsupported model type 'Unigram'");
  j = nlohmann::json::parse(R"({"pre_tokenizer": {"type": "Metaspace2"}, "model": {"type": "BPE", "vocab": {}, "merges": []}})");
  write_file(dir / "pre.json", j.dump());
  one_error("'" + dir / "pre.json" + "'", "hi\n", "unsupported pre_tokenizer type 'Metaspace2'");
  j = nlohmann::json::parse(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a z"]}})");
  write_file(dir / "merge.json", j.dump());
  one_error("'" + dir / "merge.json" + "'", "hi\n", "merge token 'z' is not in the vocabulary");
  write_file(dir / "broken.json", "{\"model\": [1, 2");
  one_error("'" + dir / "broken.json" + "'", "hi\n", "malformed JSON");
  one_error("/nonexistent/tokenizer.json", "hi\n", "does not exist");
  const std::string gpt2 = reference_tokenizer_json("gpt2");
  one_error("'" + gpt2 + "'", "ok\nbad \377 byte\n", "stdin line 2: the text is not valid UTF-8");
  one_error("--decode '" + gpt2 + "'", "1 2\n3 x\n", "stdin line 2: 'x' is not a token id");
  one_error("--decode '" + gpt2 + "'", "50257\n", "stdin line 1: token id 50257 is outside the vocabulary");
}

TEST_CASE("embpriv tokenize: hostile tokenizer files and paths, tok512.bin on UTF-8 and pipes", "[apps][tokenizer]") {
  TempDir dir("embpriv_tokenize_hostile_test");
  const auto outcome = [&](const std::string& args, const std::string& input) {
    write_file(dir / "stdin.txt", input);
    return run_binary("tokenize " + args + " < '" + dir / "stdin.txt" + "'", Capture::errors);
  };
  const auto one_error = [&](const std::string& args, const std::string& input, const std::string& message) {
    const Outcome o = outcome(args, input);
    INFO(o.output);
    CHECK(o.code == 2);
    CHECK_THAT(o.output, StartsWith("embpriv: error: ") && Contains(message));
    CHECK(std::count(o.output.begin(), o.output.end(), '\n') == 1);
  };
  // Ids that segfaulted (2^63 - 1) or allocated 3.3 GB (10^8) in a 230-byte file.
  for (const char* id : {"9223372036854775807", "100000000"}) {
    write_file(dir / "sparse.json", std::string(R"({"added_tokens": [{"id": )") + id +
                                        R"(, "content": "<s>", "special": true}], "model": {"type": "BPE", )"
                                        R"("vocab": {"a": 0, "b": 1}, "merges": []}})");
    one_error("'" + dir / "sparse.json" + "'", "ab\n", std::string("token id ") + id + " is too sparse");
  }
  // Paths the system cannot resolve: a symbolic-link loop, a 300-character name, a long path.
  std::filesystem::create_symlink(dir / "loop", dir / "loop");
  one_error("'" + dir / "loop" + "'", "hi\n", "Too many levels of symbolic links");
  one_error("'" + dir / std::string(300, 'n') + "'", "hi\n", "File name too long");
  std::string deep = dir.path.string();
  for (int i = 0; i < 700; ++i) deep += "/deeper";  // 4,900 characters: beyond PATH_MAX
  one_error("'" + deep + "'", "hi\n", "File name too long");

  // tok512.bin refuses invalid UTF-8 as tokenizer.json does, and decodes byte tokens that do not
  // spell a character as U+FFFD; through a pipe it is read once, whole.
  const std::string tok512 = stories260k_tokenizer();
  one_error("'" + tok512 + "'", "ok\nbad \377 byte\n", "stdin line 2: the text is not valid UTF-8");
  write_file(dir / "byte.txt", std::to_string(3 + 0xC3) + "\n");
  const Outcome lone_byte = run_binary("tokenize --decode '" + tok512 + "' < '" + dir / "byte.txt" + "'");
  CHECK(lone_byte.code == 0);
  CHECK(lone_byte.output == "\xEF\xBF\xBD\n");
  // As `tokenize <(cat tok512.bin)`: the file comes through a FIFO, written once; a second
  // opening of it (the old code read the file twice) gets an empty read from a late writer.
  const std::string fifo = dir / "tok512.fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  write_file(dir / "story.txt", "Once upon a time\n");
  const std::string writer = "(cat '" + tok512 + "' > '" + fifo + "'; timeout 5 sh -c \": > '" + fifo +
                             "'\") > /dev/null 2>&1 & ";
  const Outcome piped =
      run_binary("tokenize '" + fifo + "' < '" + dir / "story.txt" + "'", Capture::everything, writer);
  INFO(piped.output);
  CHECK(piped.code == 0);
  const Outcome direct = run_binary("tokenize '" + tok512 + "' < '" + dir / "story.txt" + "'");
  CHECK(direct.output.size() > 4);  // a line of ids
  CHECK(piped.output == direct.output);
}
