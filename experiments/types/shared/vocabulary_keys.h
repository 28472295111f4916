#pragma once
// The keys types inversion and obfuslm share (experiments/types/shared/inversion_data.h reads
// them for both): the vocabulary and its model or GloVe table, the private sentences, the KNN
// attack's k, the sentiment utility's training text and the language-model utility. Each is
// declared once here; a type may word its help for its own use (with_help), never its default,
// kind or range. data.glove_words is not among them: its default differs on purpose
// (tests/experiments/engine/key_declarations_test.cpp says why), so each type declares its own
// and hands it to read_vocabulary_settings.
#include <cstdint>
#include <string>
#include <vector>

#include "attacks/nearest_rows.h"
#include "experiments/engine/typed_key.h"
#include "experiments/types/shared/data_keys.h"

namespace embpriv {

// data.vocabulary: the rows of a language model (stories260K, or a Hugging Face folder) or the
// GloVe words.
enum class Vocabulary { stories260k, glove };
// mask: which tokens are sent unchanged; punctuation: spaces, punctuation and special tokens
// are public (the vMF paper's Def. 6.2).
enum class TokenMask { none, punctuation };
// attack.learned_model: the learned inversion's network.
enum class LearnedModel { mlp, transformer };

}  // namespace embpriv

namespace embpriv::vocabulary_key {

inline const ChoiceKey<Vocabulary> kVocabulary =
    choice_key("data.vocabulary", Vocabulary::stories260k,
               {{Vocabulary::stories260k, "stories260k"}, {Vocabulary::glove, "glove"}},
               "stories260k (the llama2.c model's tokens) or glove (GloVe 100-d words)");
inline const Key<std::string> kModel = text_key(
    "data.model", "tinyllama/stories260K.bin", "llama2.c checkpoint (relative: the working folder, then the shared data folder)");
inline const Key<std::string> kTokenizer =
    text_key("data.tokenizer", "auto",
             "a llama2.c tokenizer .bin, a tokenizer.json or an HF folder; auto: data.model's own tokenizer.json when it "
             "is an HF folder, else tinyllama/tok512.bin");
inline const Key<std::string>& kGlove = kGloveTableKey;
inline const Key<std::string> kSentences =
    text_key("data.sentences", "sentiment/yelp.json", "UCI sentiment sentences: the private text");
inline const Key<std::int64_t> kMaxSentences =
    integer_key("data.max_sentences", 300, "sentences of data.sentences attacked").at_least(1);
inline const Key<std::int64_t> kK =
    integer_key("attack.k", 5, "guesses kept per token (top-1 and top-k recovery)").at_least(1).at_most(100);
inline const Key<std::vector<std::string>> kTrainSentences =
    texts_key("utility.train_sentences", {"sentiment/amazon.json", "sentiment/imdb.json"},
              "its training sentences; [] to skip");
inline const Key<std::int64_t> kTexts =
    integer_key("language_model.texts", 8, "texts the clean model writes (sampled), read back from perturbed embeddings")
        .at_least(0);
inline const Key<std::int64_t> kTokens = integer_key("language_model.tokens", 48, "tokens of each text").at_least(2).at_most(255);
inline const Key<double> kTemperature =
    number_key("language_model.temperature", "1.0", "the sampling temperature").above(0);

// obfuslm's prompt, which the shared settings check for valid UTF-8 where a type declares it.
inline const Key<std::string> kPrompt =
    text_key("language_model.prompt", "Once upon a time", "the prompt of the generated text");

}  // namespace embpriv::vocabulary_key
