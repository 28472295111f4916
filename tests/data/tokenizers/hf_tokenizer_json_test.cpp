// tokenizer.json files embpriv cannot read: each gets one clear error naming the problem.
#include "tests/catch.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>

#include "core/error.h"
#include "data/tokenizers/hf_tokenizer.h"
#include "tests/data/tokenizers/hf_reference.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
using nlohmann::json;

namespace {

// A small valid tokenizer.json: BPE over a, b with the merge a b -> ab.
json small_tokenizer() {
  return json::parse(R"({"version": "1.0", "added_tokens": [], "normalizer": null, "pre_tokenizer": null,
    "post_processor": null, "decoder": {"type": "Fuse"},
    "model": {"type": "BPE", "dropout": null, "unk_token": null, "vocab": {"a": 0, "b": 1, "ab": 2},
              "merges": ["a b"]}})");
}

std::string write_json(const TempDir& dir, const std::string& name, const json& j) {
  write_file(dir / name, j.dump());
  return dir / name;
}

}  // namespace

TEST_CASE("a small tokenizer.json: merges, both merge spellings, decode", "[data][tokenizer]") {
  TempDir dir("embpriv_hf_json_test");
  const HfTokenizer t = HfTokenizer::load(write_json(dir, "ok.json", small_tokenizer()));
  CHECK(t.encode("abab", false) == std::vector<std::int64_t>{2, 2});
  CHECK(t.encode("ba", false) == std::vector<std::int64_t>{1, 0});
  // No <unk>: 'c' is dropped, as the library does, and a, b then merge.
  CHECK(t.encode("acb", false) == std::vector<std::int64_t>{2});
  CHECK(t.decode({2, 0}) == "aba");
  json pairs = small_tokenizer();
  pairs["model"]["merges"] = json::array({json::array({"a", "b"})});  // the newer [left, right] form
  CHECK(HfTokenizer::load(write_json(dir, "pairs.json", pairs)).encode("ab", false) == std::vector<std::int64_t>{2});
}

TEST_CASE("bad tokenizer.json files are refused with one clear error", "[data][tokenizer]") {
  TempDir dir("embpriv_hf_json_bad_test");
  const auto refused = [&](const std::string& name, const json& j, const std::string& message) {
    CHECK_THROWS_WITH(HfTokenizer::load(write_json(dir, name, j)), Contains(name) && Contains(message));
  };
  json j = small_tokenizer();
  j["model"]["type"] = "Unigram";
  refused("model.json", j, "unsupported model type 'Unigram' (supported: BPE, WordPiece)");
  j = small_tokenizer();
  j["pre_tokenizer"] = {{"type", "Whitespace"}};
  refused("pre.json", j, "unsupported pre_tokenizer type 'Whitespace'");
  j = small_tokenizer();
  j["normalizer"] = {{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}, {{"type", "NFKC"}}}}};
  refused("normalizer.json", j, "unsupported normalizer type 'NFKC'");
  j = small_tokenizer();
  j["decoder"] = {{"type", "CTC"}};
  refused("decoder.json", j, "unsupported decoder type 'CTC'");
  j = small_tokenizer();
  j["post_processor"] = {{"type", "BertProcessing"}};
  refused("post.json", j, "BertProcessing has no \"cls\"");
  j = small_tokenizer();
  j["model"]["merges"] = {"a c"};
  refused("merge.json", j, "merge token 'c' is not in the vocabulary");
  j = small_tokenizer();
  j["model"]["merges"] = {"b a"};
  refused("merged.json", j, "merged token 'ba' is not in the vocabulary");
  j = small_tokenizer();
  j["model"]["merges"] = {"ab"};
  refused("onetoken.json", j, "merge 'ab' is not two tokens");
  j = small_tokenizer();
  j["model"]["vocab"]["a"] = "zero";
  refused("vocab.json", j, "vocab id of 'a' must be an integer >= 0");
  j = small_tokenizer();
  j["pre_tokenizer"] = json::parse(R"({"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated", "invert": false})");
  refused("regex.json", j, "unsupported pre-tokenizer split regex '\\w+'");
  j = small_tokenizer();
  j.erase("model");
  refused("nomodel.json", j, "tokenizer.json has no \"model\"");

  write_file(dir / "malformed.json", "{\"model\": {\"type\": \"BPE\",, }");
  CHECK_THROWS_WITH(HfTokenizer::load(dir / "malformed.json"), Contains("malformed.json: malformed JSON"));
  // A real tokenizer.json cut in half.
  std::ifstream real(reference_tokenizer_json("gpt2"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(real)), std::istreambuf_iterator<char>());
  write_file(dir / "truncated.json", bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH(HfTokenizer::load(dir / "truncated.json"), Contains("truncated.json: malformed JSON (truncated?)"));
  CHECK_THROWS_WITH(HfTokenizer::load(dir / "missing.json"), Contains("cannot read tokenizer"));
}

TEST_CASE("tokenizer.json ids must be dense enough to be a vocabulary, checked before allocating", "[data][tokenizer]") {
  TempDir dir("embpriv_hf_json_ids_test");
  const auto refusal = [&](const json& j) {
    try {
      HfTokenizer::load(write_json(dir, "ids.json", j));
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::bad_input);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // A few holes are fine: ids 0, 1, 2 and 1000 (below 2 x 4 + 1024).
  json j = small_tokenizer();
  j["model"]["vocab"]["c"] = 1000;
  CHECK(refusal(j) == "accepted");
  CHECK(HfTokenizer::load(dir / "ids.json").decode({1000}) == "c");
  // A vocab id of 10^7 (a 340 MB table for four tokens), 2^63 - 1 (the size overflowed and a
  // piece was written out of bounds), in the vocabulary or as an added token.
  j["model"]["vocab"]["c"] = 10000000;
  CHECK_THAT(refusal(j), Contains("ids.json: token id 10000000 is too sparse for a vocabulary of 4 distinct ids"));
  j["model"]["vocab"]["c"] = std::numeric_limits<std::int64_t>::max();
  CHECK_THAT(refusal(j), Contains("token id 9223372036854775807 is too sparse"));
  j = small_tokenizer();
  j["added_tokens"] = {{{"id", std::numeric_limits<std::int64_t>::max()}, {"content", "<s>"}, {"special", true}}};
  CHECK_THAT(refusal(j), Contains("token id 9223372036854775807 is too sparse"));
  j["added_tokens"][0]["id"] = 100000000;
  CHECK_THAT(refusal(j), Contains("token id 100000000 is too sparse"));
  j["added_tokens"][0]["id"] = -1;
  CHECK_THAT(refusal(j), Contains("added token id -1 must be an integer >= 0"));
  j = small_tokenizer();
  j["model"]["vocab"]["a"] = -5;
  CHECK_THAT(refusal(j), Contains("vocab id of 'a' must be an integer >= 0"));
  j["model"]["vocab"]["a"] = std::numeric_limits<std::uint64_t>::max();
  CHECK_THAT(refusal(j), Contains("vocab id of 'a' must be an integer >= 0"));
  // An empty vocabulary.
  j = small_tokenizer();
  j["model"]["vocab"] = json::object();
  j["model"]["merges"] = json::array();
  CHECK_THAT(refusal(j), Contains("model.vocab is empty"));
}
