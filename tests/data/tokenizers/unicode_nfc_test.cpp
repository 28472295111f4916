// NFC (data/tokenizers/unicode_nfc.h) against JavaScript's String.prototype.normalize('NFC'), and the NFC
// normalizer of a tokenizer.json (Qwen2's).
#include "tests/catch.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "data/tokenizers/hf_tokenizer.h"
#include "data/tokenizers/unicode_nfc.h"
#include "tests/data/tokenizers/hf_reference.h"
#include "tests/data/tokenizers/tokenizer_texts.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

TEST_CASE("NFC equals JavaScript's normalize('NFC') on real and decomposed text", "[data][tokenizer]") {
  std::vector<std::string> texts = tokenizer_test_lines(60);
  const std::vector<std::string> crafted = {
      "e\u0301",                      // é from e + acute
      "A\u030A \u212B \u00C5\u0327",  // Å three ways (the Angstrom sign is a singleton)
      "\u1100\u1161\u11A8 \uAC00\u11A8 \u1100\u1161",  // Hangul L V T, LV + T, L V
      "a\u0302\u0323 a\u0323\u0302",  // marks reordered by combining class: both ậ
      "\u1E0A\u0323 \u0344 \u0F73",   // a composite with a mark below; decompositions to two marks
      "\u0915\u093C \u0958",          // a composition exclusion stays decomposed
      "\u0301e e\u0301\u0301",        // a leading mark; a second acute does not compose
      "a\u0346\u0301 a\u0323\u0301",  // blocked by a mark of the same class; not by a lower one
      "Tie\u0302\u0301ng Vie\u0323\u0302t \u1112\u1161\u11AB\u1100\u116E\u11A8\u110B\u1165",  // NFD Vietnamese, Korean
      "\uFB01 \u2460 \u00BD",         // compatibility characters are not NFC's business
  };
  texts.insert(texts.end(), crafted.begin(), crafted.end());
  const std::vector<std::string> expected = reference_nfc(texts);
  REQUIRE(expected.size() == texts.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (nfc(texts[i]) != expected[i] && ++wrong <= 3) FAIL_CHECK("'" << texts[i] << "' -> '" << nfc(texts[i]) << "'");
  }
  CHECK(wrong == 0);
  CHECK(nfc("e\u0301") == "\u00E9");
  CHECK(nfc("\u1100\u1161\u11A8") == "\uAC01");
}

TEST_CASE("a tokenizer.json with the NFC normalizer encodes decomposed text as composed", "[data][tokenizer]") {
  TempDir dir("embpriv_nfc_tokenizer_test");
  // GPT-2's vocabulary with Qwen2's pipeline: NFC, the Qwen2 split, ByteLevel without its regex.
  std::ifstream in(reference_tokenizer_json("gpt2"));
  nlohmann::json j = nlohmann::json::parse(in);
  j["normalizer"] = {{"type", "NFC"}};
  j["pre_tokenizer"] = nlohmann::json::parse(R"({"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
       "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false}]})");
  write_file(dir / "qwen2_like.json", j.dump());
  const HfTokenizer t = HfTokenizer::load(dir / "qwen2_like.json");
  CHECK(t.encode("cafe\u0301 2024", false) == t.encode("caf\u00E9 2024", false));
  CHECK(t.encode("cafe\u0301", false) != HfTokenizer::load(reference_tokenizer_json("gpt2")).encode("cafe\u0301", false));
  CHECK(t.encode(" 2024", false).size() == 5);  // " " and one token a digit
  CHECK(t.decode(t.encode("caf\u00E9 2024", false)) == "caf\u00E9 2024");
}
