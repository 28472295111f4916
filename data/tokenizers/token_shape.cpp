#include "data/tokenizers/token_shape.h"

#include <cctype>

namespace embpriv {

TokenCase token_case(const std::string& token) {
  std::size_t letters = 0, upper = 0;
  bool first_upper = false;
  for (const char ch : token) {
    const auto c = static_cast<unsigned char>(ch);
    if (!std::isalpha(c)) continue;
    const bool is_upper = std::isupper(c) != 0;
    if (letters == 0) first_upper = is_upper;
    ++letters;
    upper += is_upper;
  }
  if (letters == 0) return TokenCase::none;
  if (upper == 0) return TokenCase::lower;
  if (upper == letters) return TokenCase::upper;
  if (upper == 1 && first_upper) return TokenCase::capitalized;
  return TokenCase::mixed;
}

const char* to_string(TokenCase c) {
  switch (c) {
    case TokenCase::none: return "none";
    case TokenCase::lower: return "lower";
    case TokenCase::capitalized: return "capitalized";
    case TokenCase::upper: return "upper";
    case TokenCase::mixed: return "mixed";
  }
  return "none";
}

std::string normalized_token(const std::string& token) {
  std::string out = token;
  for (char& ch : out) {
    const auto c = static_cast<unsigned char>(ch);
    ch = std::isdigit(c) ? '0' : static_cast<char>(std::tolower(c));
  }
  return out;
}

}  // namespace embpriv
