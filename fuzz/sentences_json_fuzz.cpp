// The labelled sentences JSON (data/corpora/sentiment_corpus.h).
#include "data/corpora/sentiment_corpus.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "sentences", ".json");
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::load_sentiment_sentences(path); });
}
