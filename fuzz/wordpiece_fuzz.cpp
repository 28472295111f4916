// BERT's tokenizer.json pieces (data/tokenizers/wordpiece.h): the input is read as a tokenizer.json and,
// when accepted, encodes and decodes a line with accents, CJK, controls, punctuation and an
// over-long word; the same bytes, when valid UTF-8, also go through BertNormalizer (every step),
// BertPreTokenizer and WordPiece over a small vocabulary.
#include "data/tokenizers/hf_tokenizer.h"
#include "data/tokenizers/unicode_categories.h"
#include "data/tokenizers/wordpiece.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "wordpiece", ".json");
  embpriv::fuzz::expect_only_embpriv_errors([&] {
    const embpriv::HfTokenizer tokenizer = embpriv::HfTokenizer::load(path);
    const std::string longest(150, 'x');
    const auto ids = tokenizer.encode("Héllo, WÖRLD!! 東京\u200B\t[CLS] naïve ##ing " + longest + " İ\n", true);
    tokenizer.decode(ids);
  });
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (embpriv::utf8_lossy(text) != text) return 0;
  return embpriv::fuzz::expect_only_embpriv_errors([&] {
    embpriv::HfBpeModel vocabulary;
    const char* pieces[] = {"[UNK]", "a", "##a", "b", "##b", "é", "##é", "東"};
    for (std::int64_t id = 0; id < 8; ++id) {
      vocabulary.ids[pieces[id]] = id;
      vocabulary.pieces.push_back(pieces[id]);
    }
    vocabulary.unk = 0;
    embpriv::HfWordPiece options;
    options.enabled = true;
    options.max_input_chars_per_word = 20;
    std::vector<std::int64_t> ids;
    for (const std::string& word : embpriv::bert_pre_tokenize(embpriv::bert_normalize({}, text))) {
      embpriv::wordpiece_encode_word(vocabulary, options, word, ids);
    }
    std::vector<std::string> tokens;
    for (std::int64_t id : ids) tokens.push_back(vocabulary.pieces[static_cast<std::size_t>(id)]);
    embpriv::wordpiece_decode("##", true, tokens);
  });
}
