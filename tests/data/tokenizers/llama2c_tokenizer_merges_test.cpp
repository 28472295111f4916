// The llama2.c tokenizer's merges (a heap over adjacent pairs) give exactly the ids of run.c's
// quadratic loop (the highest-score pair, the leftmost on a tie), on the real sentences, on
// random text and on ties; a 1 MB text is encoded in a test (it took minutes with the loop).
#include "tests/catch.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <unordered_map>

#include "data/tokenizers/llama2c_tokenizer.h"
#include "data/corpora/sentiment_corpus.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

// run.c's encode(), as written there: reads the tokenizer file itself and merges by rescanning.
class ReferenceEncoder {
 public:
  ReferenceEncoder(const std::string& path, std::int64_t vocab_size) {
    std::ifstream in(path, std::ios::binary);
    std::int32_t max_length = 0;
    in.read(reinterpret_cast<char*>(&max_length), 4);
    for (std::int64_t id = 0; id < vocab_size; ++id) {
      float score = 0;
      std::int32_t length = 0;
      in.read(reinterpret_cast<char*>(&score), 4);
      in.read(reinterpret_cast<char*>(&length), 4);
      std::string piece(static_cast<std::size_t>(length), '\0');
      in.read(piece.data(), length);
      ids_.emplace(piece, id);
      pieces_.push_back(piece);
      scores_.push_back(score);
    }
  }

  std::vector<std::int64_t> encode(const std::string& text) const {
    std::vector<std::int64_t> body;
    if (!text.empty()) body.push_back(ids_.at(" "));
    for (std::size_t i = 0; i < text.size();) {
      std::size_t length = 1;
      while (i + length < text.size() && length < 4 && (static_cast<unsigned char>(text[i + length]) & 0xC0) == 0x80) {
        ++length;
      }
      const auto found = ids_.find(text.substr(i, length));
      if (found != ids_.end()) {
        body.push_back(found->second);
      } else {
        for (std::size_t k = i; k < i + length; ++k) body.push_back(3 + static_cast<unsigned char>(text[k]));
      }
      i += length;
    }
    while (true) {
      float best_score = -1e10f;
      std::int64_t best_id = -1;
      std::size_t best_at = 0;
      for (std::size_t i = 0; i + 1 < body.size(); ++i) {
        const auto found = ids_.find(pieces_[body[i]] + pieces_[body[i + 1]]);
        if (found != ids_.end() && scores_[found->second] > best_score) {
          best_score = scores_[found->second];
          best_id = found->second;
          best_at = i;
        }
      }
      if (best_id < 0) break;
      body[best_at] = best_id;
      body.erase(body.begin() + static_cast<std::ptrdiff_t>(best_at) + 1);
    }
    body.insert(body.begin(), Llama2cTokenizer::kBos);
    return body;
  }

 private:
  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  std::unordered_map<std::string, std::int64_t> ids_;
};

// Random text: ASCII letters and spaces, some multi-byte UTF-8 characters and raw bytes.
std::string random_text(std::mt19937_64& rng, std::size_t length) {
  static const std::vector<std::string> alphabet = {"a", "e", "t", "o", "n", " ", " ", "s", "h", "r", "d",
                                                    "l", ".", ",", "é", "€", "\xff", "\x01", "Th", "in"};
  std::string text;
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  while (text.size() < length) text += alphabet[pick(rng)];
  return text;
}

}  // namespace

TEST_CASE("the heap merges give run.c's ids on the real sentences and on random text", "[data][tokenizer]") {
  const Llama2cTokenizer tokenizer = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  const ReferenceEncoder reference(stories260k_tokenizer(), 512);
  std::size_t compared = 0;
  for (const char* corpus : {"sentiment/yelp.json", "sentiment/amazon.json", "sentiment/imdb.json"}) {
    for (const LabelledSentence& sentence : load_sentiment_sentences(shared_data(corpus))) {
      INFO(sentence.text);
      REQUIRE(tokenizer.encode(sentence.text) == reference.encode(sentence.text));
      ++compared;
    }
  }
  CHECK(compared > 2500);
  std::mt19937_64 rng(7);
  for (int i = 0; i < 300; ++i) {
    const std::string text = random_text(rng, 1 + rng() % 400);
    INFO(text);
    REQUIRE(tokenizer.encode(text) == reference.encode(text));
  }
  CHECK(tokenizer.encode("") == reference.encode(""));
}

TEST_CASE("on equal scores the leftmost pair merges first, as in run.c", "[data][tokenizer]") {
  TempDir dir("embpriv_tokenizer_ties_test");
  // "ab" and "bc" score the same: in "abc" the leftmost pair (a, b) wins, giving [ab, c]; the
  // rightmost would give [a, bc].
  std::vector<std::string> pieces = {"<unk>", "\n<s>\n", "\n</s>\n"};
  for (int byte = 0; byte < 256; ++byte) {
    char piece[7];
    std::snprintf(piece, sizeof piece, "<0x%02X>", byte);
    pieces.push_back(piece);
  }
  const std::vector<std::string> extra = {" ", "a", "b", "c", "ab", "bc", " a"};
  pieces.insert(pieces.end(), extra.begin(), extra.end());
  std::vector<float> scores(pieces.size(), -1);
  const auto id = [&](const std::string& piece) {
    return static_cast<std::int64_t>(std::find(pieces.begin(), pieces.end(), piece) - pieces.begin());
  };
  scores[id("ab")] = scores[id("bc")] = 5;
  scores[id(" a")] = -2e10f;  // below run.c's -1e10: never merged
  {
    std::ofstream out(dir / "tok.bin", std::ios::binary);
    const std::int32_t max_length = 16;
    out.write(reinterpret_cast<const char*>(&max_length), 4);
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      const auto length = static_cast<std::int32_t>(pieces[i].size());
      out.write(reinterpret_cast<const char*>(&scores[i]), 4);
      out.write(reinterpret_cast<const char*>(&length), 4);
      out.write(pieces[i].data(), length);
    }
  }
  const auto size = static_cast<std::int64_t>(pieces.size());
  const Llama2cTokenizer tokenizer = Llama2cTokenizer::load(dir / "tok.bin", size);
  const ReferenceEncoder reference(dir / "tok.bin", size);
  CHECK(tokenizer.encode("bcab", false) == std::vector<std::int64_t>{id(" "), id("bc"), id("ab")});
  for (const std::string text : {"abc", "abcabc", "ababab", "bcbcab", "aabbcc", "cbacba"}) {
    INFO(text);
    CHECK(tokenizer.encode(text) == reference.encode(text));
  }
  CHECK(tokenizer.encode("abc", false) == std::vector<std::int64_t>{id(" "), id("ab"), id("c")});
}

TEST_CASE("a 1 MB text is encoded and decodes back", "[data][tokenizer]") {
  const Llama2cTokenizer tokenizer = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  std::mt19937_64 rng(11);
  std::string text;
  const std::vector<LabelledSentence> sentences = load_sentiment_sentences(shared_data("sentiment/yelp.json"));
  while (text.size() < (1u << 20)) text += sentences[rng() % sentences.size()].text + " ";
  const std::vector<std::int64_t> ids = tokenizer.encode(text);
  CHECK(ids.size() > text.size() / 8);
  CHECK(tokenizer.decode(ids) == text);
}
