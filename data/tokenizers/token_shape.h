#pragma once
// A word token's shape, for classifiers over word embeddings that lose it when they look a word
// up lower-cased (data/tokenizers/word_tokenizer.h): its case pattern and its digits. Names, acronyms and
// numbers written in a pattern (phone numbers, IP addresses, dates) are told apart by shape, the
// classic features of word-level taggers (Collobert et al., JMLR 2011, sec. 3.5: a capitalisation
// feature beside the lower-cased word; Lample et al., NAACL 2016, sec. 4.1: digits mapped to 0).
#include <string>

namespace embpriv {

enum class TokenCase { none, lower, capitalized, upper, mixed };  // none: no ASCII letter

// "jane" lower, "Jane" capitalized, "IBM" / "I" upper, "McDonald" / "iPhone" mixed, "42" none.
TokenCase token_case(const std::string& token);
const char* to_string(TokenCase c);

// Lower-cased, each ASCII digit replaced by 0: "555-1234" -> "000-0000", "Bob" -> "bob".
std::string normalized_token(const std::string& token);

}  // namespace embpriv
