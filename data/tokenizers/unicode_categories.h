#pragma once
// Unicode character classes the tokenizers' split patterns use: \p{L}, \p{N} (general
// categories, from the generated table data/tokenizers/unicode_categories_table.cpp) and \s (the Unicode
// White_Space property, UCD PropList.txt), plus UTF-8 decoding into code points.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace embpriv {

struct CodePointRange {
  char32_t first, last;  // inclusive
};

namespace unicode_tables {
extern const CodePointRange kLetters[];
extern const std::size_t kLetters_count;
extern const CodePointRange kNumbers[];
extern const std::size_t kNumbers_count;
}  // namespace unicode_tables

bool is_letter(char32_t c);      // \p{L}
bool is_number(char32_t c);      // \p{N}
bool is_whitespace(char32_t c);  // \s: White_Space

// The code points of UTF-8 text; throws embpriv::Error naming the byte offset of the first
// invalid sequence (overlong forms, surrogates and values past U+10FFFF are invalid).
std::vector<char32_t> utf8_code_points(const std::string& text);
// Appends the UTF-8 bytes of one code point.
void append_utf8(std::string& out, char32_t c);
// Replaces each invalid UTF-8 sequence by U+FFFD, as a lossy UTF-8 reading does (one U+FFFD
// per maximal invalid subpart, Unicode 15 sec. 3.9, U+FFFD substitution of maximal subparts).
std::string utf8_lossy(const std::string& bytes);

}  // namespace embpriv
