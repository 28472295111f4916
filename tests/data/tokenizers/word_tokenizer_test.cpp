// Word tokens for GloVe: lower case, punctuation and clitics split; unknown words counted.
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <cctype>

#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "data/corpora/sentiment_corpus.h"
#include "data/tokenizers/word_tokenizer.h"
#include "tests/test_data.h"

using namespace embpriv;
using Catch::Matchers::Contains;

TEST_CASE("words are split as the GloVe vocabulary spells them", "[data]") {
  CHECK(word_tokens("Wow... Loved this place.") ==
        std::vector<std::string>{"wow", ".", ".", ".", "loved", "this", "place", "."});
  CHECK(word_tokens("I don't think it's the BEST (at all)!") ==
        std::vector<std::string>{"i", "do", "n't", "think", "it", "'s", "the", "best", "(", "at", "all", ")", "!"});
  CHECK(word_tokens("  'quoted'  10/10 ") == std::vector<std::string>{"'", "quoted", "'", "10", "/", "10"});
  CHECK(word_tokens("").empty());
}

TEST_CASE("cased word tokens keep the case, split alike", "[data]") {
  CHECK(cased_word_tokens("I DON'T know Bob's IP: 10.0.0.1") ==
        std::vector<std::string>{"I", "DO", "N'T", "know", "Bob", "'s", "IP", ":", "10", ".", "0", ".", "0", ".", "1"});
  // Lower-casing each cased token gives word_tokens, on real sentences too.
  for (const auto& s : load_sentiment_sentences(shared_data("sentiment/yelp.json"))) {
    std::vector<std::string> lowered = cased_word_tokens(s.text);
    for (std::string& t : lowered) {
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    REQUIRE(lowered == word_tokens(s.text));
  }
}

TEST_CASE("the yelp sentences in GloVe: few unknown words", "[data][glove]") {
  const EmbeddingTable glove = load_cached_glove(resolve_data_path(kGloveJson));
  const auto sentences = load_sentiment_sentences(shared_data("sentiment/yelp.json"));
  CHECK(sentences.size() == 1000);
  std::int64_t tokens = 0, unknown = 0;
  for (const auto& s : sentences) {
    const WordIds ids = word_ids(s.text, glove);
    tokens += static_cast<std::int64_t>(ids.ids.size());
    unknown += ids.unknown;
  }
  INFO(unknown << " unknown of " << tokens << " tokens");
  CHECK(tokens > 10000);
  // Measured: 940 of 12,870 (7.3%). The wink package leaves out GloVe's one-character words
  // ("i", "a", digits) and the clitics "n't", "'s": those are most of the unknown tokens.
  CHECK(unknown < tokens / 10);
  CHECK(glove.index_of("i") == -1);
  CHECK(glove.index_of("n't") == -1);
  const WordIds known = word_ids("The food was good.", glove);
  CHECK(known.unknown == 0);
  CHECK(known.ids[0] == 0);  // "the" is the most frequent word
  CHECK(word_ids("qwertzuiopasdf", glove).unknown == 1);
}

TEST_CASE("the sentiment files: 1000 labelled sentences each, broken ones named", "[data]") {
  for (const char* name : {"amazon", "imdb", "yelp"}) {
    const auto sentences = load_sentiment_sentences(shared_data(std::string("sentiment/") + name + ".json"));
    CHECK(sentences.size() == 1000);
    CHECK(std::count_if(sentences.begin(), sentences.end(), [](const LabelledSentence& s) { return s.label == 1; }) == 500);
  }
  CHECK_THROWS_WITH(load_sentiment_sentences("/nonexistent.json"), Contains("cannot read"));
}
