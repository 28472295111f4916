#pragma once
// The Unicode character classes of BERT's text processing, as the `tokenizers` library's
// BertNormalizer and BertPreTokenizer define them (normalizers/bert.rs, pre_tokenizers/bert.rs),
// from the generated table data/tokenizers/unicode_bert_table.cpp (scripts/make_unicode_bert.py).
#include <cstddef>
#include <vector>

#include "data/tokenizers/unicode_categories.h"

namespace embpriv {

struct CaseMapping {
  char32_t from, first, second;  // second 0: a one-code-point mapping
};

namespace bert_tables {
extern const CodePointRange kControls[];
extern const std::size_t kControls_count;
extern const CodePointRange kPunctuation[];
extern const std::size_t kPunctuation_count;
extern const CodePointRange kMarksNonspacing[];
extern const std::size_t kMarksNonspacing_count;
extern const CodePointRange kMarks[];
extern const std::size_t kMarks_count;
extern const CaseMapping kLowercase[];
extern const std::size_t kLowercase_count;
}  // namespace bert_tables

// BertNormalizer's is_control: general category Cc, Cf or Co (the unicode_categories crate's
// is_other()), except tab, newline and carriage return, which count as whitespace.
bool is_bert_control(char32_t c);
// BertNormalizer's is_whitespace: tab, newline, carriage return, or the White_Space property.
bool is_bert_whitespace(char32_t c);
// BertPreTokenizer's is_bert_punc: ASCII punctuation or general category P (Pc Pd Ps Pe Pi Pf Po).
bool is_bert_punctuation(char32_t c);
// General category Mn (what strip_accents removes after NFD).
bool is_mark_nonspacing(char32_t c);
// General category M (Mn Mc Me): what the StripAccents normalizer removes.
bool is_combining_mark(char32_t c);
// The CJK Unified Ideographs blocks BertNormalizer's handle_chinese_chars surrounds with spaces.
bool is_chinese_char(char32_t c);
// Appends the lower-case mapping of c (one or two code points), as Rust's char::to_lowercase.
void append_lowercase(char32_t c, std::vector<char32_t>& out);

}  // namespace embpriv
