#include "data/tokenizers/unicode_bert.h"

#include <algorithm>

namespace embpriv {
namespace {

bool in_ranges(const CodePointRange* table, std::size_t count, char32_t c) {
  const CodePointRange* end = table + count;
  const CodePointRange* it =
      std::upper_bound(table, end, c, [](char32_t v, const CodePointRange& r) { return v < r.first; });
  return it != table && c <= (it - 1)->last;
}

}  // namespace

bool is_bert_control(char32_t c) {
  if (c == U'\t' || c == U'\n' || c == U'\r') return false;
  return in_ranges(bert_tables::kControls, bert_tables::kControls_count, c);
}

bool is_bert_whitespace(char32_t c) { return c == U'\t' || c == U'\n' || c == U'\r' || is_whitespace(c); }

bool is_bert_punctuation(char32_t c) {
  // Rust's char::is_ascii_punctuation: the 32 printable ASCII characters that are neither letters,
  // digits nor space.
  if (c < 0x80) return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
  return in_ranges(bert_tables::kPunctuation, bert_tables::kPunctuation_count, c);
}

bool is_mark_nonspacing(char32_t c) {
  return in_ranges(bert_tables::kMarksNonspacing, bert_tables::kMarksNonspacing_count, c);
}

bool is_combining_mark(char32_t c) { return in_ranges(bert_tables::kMarks, bert_tables::kMarks_count, c); }

bool is_chinese_char(char32_t c) {
  // normalizers/bert.rs, is_chinese_char: the CJK Unified Ideographs blocks and their extensions
  // A-E, and the two compatibility-ideograph blocks.
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

void append_lowercase(char32_t c, std::vector<char32_t>& out) {
  if (c < 0x80) {
    out.push_back(c >= U'A' && c <= U'Z' ? c + 32 : c);
    return;
  }
  using namespace bert_tables;
  const CaseMapping* end = kLowercase + kLowercase_count;
  const CaseMapping* it = std::lower_bound(kLowercase, end, c, [](const CaseMapping& m, char32_t v) { return m.from < v; });
  if (it == end || it->from != c) {
    out.push_back(c);
    return;
  }
  out.push_back(it->first);
  if (it->second != 0) out.push_back(it->second);
}

}  // namespace embpriv
