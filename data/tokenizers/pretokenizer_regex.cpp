#include "data/tokenizers/pretokenizer_regex.h"

#include "core/error.h"
#include "data/tokenizers/unicode_categories.h"

namespace embpriv {
namespace {

const std::string kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
const std::string kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const std::string kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

using Text = std::vector<char32_t>;

bool is_other(char32_t c) { return !is_whitespace(c) && !is_letter(c) && !is_number(c); }  // [^\s\p{L}\p{N}]
bool is_newline(char32_t c) { return c == U'\r' || c == U'\n'; }

char32_t lower_ascii(char32_t c) { return c >= U'A' && c <= U'Z' ? c + 32 : c; }

// 's|'t|'re|'ve|'m|'ll|'d at i (ASCII case folded when ignore_case): the length, or 0.
std::size_t contraction(const Text& s, std::size_t i, bool ignore_case) {
  if (s[i] != U'\'' || i + 1 >= s.size()) return 0;
  const auto at = [&](std::size_t k) { return i + k < s.size() ? (ignore_case ? lower_ascii(s[i + k]) : s[i + k]) : 0; };
  const char32_t a = at(1);
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  const char32_t b = at(2);
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  return 0;
}

// Length of the run of characters with `pred` starting at i, at most `limit`.
template <class Pred>
std::size_t run(const Text& s, std::size_t i, Pred pred, std::size_t limit = static_cast<std::size_t>(-1)) {
  std::size_t k = i;
  while (k < s.size() && k - i < limit && pred(s[k])) ++k;
  return k - i;
}

// \s+(?!\S) then \s+ at i (the last two alternatives of every pattern): the whitespace run, less
// its last character when a non-space follows it and that leaves at least one (backtracking).
std::size_t whitespace_run(const Text& s, std::size_t i) {
  const std::size_t n = run(s, i, is_whitespace);
  if (n == 0) return 0;
  if (i + n == s.size() || n == 1) return n;  // (?!\S) holds at the end; else \s+ takes the one
  return n - 1;
}

// An optional space (" ?") then a run of `pred`: the length, or 0.
template <class Pred>
std::size_t space_then_run(const Text& s, std::size_t i, Pred pred) {
  const std::size_t space = s[i] == U' ' ? 1 : 0;
  const std::size_t n = run(s, i + space, pred);
  // Without the space, the run would have to start at the space: no match either way.
  return n > 0 ? space + n : 0;
}

// GPT-2: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::size_t match_gpt2(const Text& s, std::size_t i) {
  if (std::size_t n = contraction(s, i, false)) return n;
  if (std::size_t n = space_then_run(s, i, is_letter)) return n;
  if (std::size_t n = space_then_run(s, i, is_number)) return n;
  if (std::size_t n = space_then_run(s, i, is_other)) return n;
  return whitespace_run(s, i);
}

// Llama-3 (max_digits 3) and Qwen2 (max_digits 1):
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,D}| ?[^\s\p{L}\p{N}]+[\r\n]*|
// \s*[\r\n]+|\s+(?!\S)|\s+
std::size_t match_llama3(const Text& s, std::size_t i, std::size_t max_digits) {
  if (std::size_t n = contraction(s, i, true)) return n;
  // [^\r\n\p{L}\p{N}]?\p{L}+
  const char32_t c = s[i];
  if (!is_newline(c) && !is_letter(c) && !is_number(c)) {
    if (std::size_t n = run(s, i + 1, is_letter)) return 1 + n;
  }
  if (std::size_t n = run(s, i, is_letter)) return n;
  // \p{N}{1,D}
  if (std::size_t n = run(s, i, is_number, max_digits)) return n;  // bounded: a long number stays linear
  // ?[^\s\p{L}\p{N}]+[\r\n]*
  if (std::size_t n = space_then_run(s, i, is_other)) return n + run(s, i + n, is_newline);
  // \s*[\r\n]+: through the last \r or \n of the whitespace run
  const std::size_t spaces = run(s, i, is_whitespace);
  for (std::size_t k = spaces; k > 0; --k) {
    if (is_newline(s[i + k - 1])) return k;
  }
  return whitespace_run(s, i);
}

std::size_t match_at(SplitPattern pattern, const Text& s, std::size_t i) {
  switch (pattern) {
    case SplitPattern::gpt2: return match_gpt2(s, i);
    case SplitPattern::llama3: return match_llama3(s, i, 3);
    case SplitPattern::qwen2: return match_llama3(s, i, 1);
  }
  return 0;
}

}  // namespace

const std::string& split_pattern_text(SplitPattern pattern) {
  switch (pattern) {
    case SplitPattern::gpt2: return kGpt2;
    case SplitPattern::llama3: return kLlama3;
    case SplitPattern::qwen2: return kQwen2;
  }
  return kGpt2;
}

SplitPattern split_pattern_from_text(const std::string& regex) {
  for (SplitPattern p : {SplitPattern::gpt2, SplitPattern::llama3, SplitPattern::qwen2}) {
    if (regex == split_pattern_text(p)) return p;
  }
  EMBPRIV_CHECK(false, "unsupported pre-tokenizer split regex '"
                           << regex << "' (known: the GPT-2, Llama-3 and Qwen2 patterns, docs/models.md)");
  return SplitPattern::gpt2;
}

std::vector<std::string> split_with_pattern(SplitPattern pattern, const std::string& text) {
  const Text s = utf8_code_points(text);
  std::vector<std::string> pieces;
  std::string gap, piece;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = match_at(pattern, s, i);
    if (n == 0) {  // not part of a match: it belongs to the gap before the next match
      append_utf8(gap, s[i]);
      ++i;
      continue;
    }
    if (!gap.empty()) pieces.push_back(std::move(gap));
    gap.clear();
    piece.clear();
    for (std::size_t k = i; k < i + n; ++k) append_utf8(piece, s[k]);
    pieces.push_back(piece);
    i += n;
  }
  if (!gap.empty()) pieces.push_back(std::move(gap));
  return pieces;
}

}  // namespace embpriv
