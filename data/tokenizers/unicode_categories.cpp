#include "data/tokenizers/unicode_categories.h"

#include <algorithm>

#include "core/error.h"

namespace embpriv {
namespace {

bool in_ranges(const CodePointRange* ranges, std::size_t count, char32_t c) {
  const CodePointRange* end = ranges + count;
  const CodePointRange* it =
      std::upper_bound(ranges, end, c, [](char32_t v, const CodePointRange& r) { return v < r.first; });
  return it != ranges && c <= (it - 1)->last;
}

// Length of the valid UTF-8 sequence at bytes[i] (1..4), or 0 and in `bad` the number of bytes
// of its maximal invalid subpart (>= 1).
std::size_t valid_sequence(const std::string& bytes, std::size_t i, char32_t& c, std::size_t& bad) {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
  const unsigned char b0 = at(i);
  if (b0 < 0x80) {
    c = b0;
    return 1;
  }
  std::size_t length = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte (Table 3-7)
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    bad = 1;
    return 0;
  }
  c = b0 & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    const bool ok = i + k < bytes.size() && at(i + k) >= (k == 1 ? lo : 0x80) && at(i + k) <= (k == 1 ? hi : 0xBF);
    if (!ok) {
      bad = k;
      return 0;
    }
    c = (c << 6) | (at(i + k) & 0x3F);
  }
  return length;
}

}  // namespace

bool is_letter(char32_t c) { return in_ranges(unicode_tables::kLetters, unicode_tables::kLetters_count, c); }
bool is_number(char32_t c) { return in_ranges(unicode_tables::kNumbers, unicode_tables::kNumbers_count, c); }

bool is_whitespace(char32_t c) {
  // PropList.txt, White_Space.
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<char32_t> utf8_code_points(const std::string& text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t c = 0;
    std::size_t bad = 0;
    const std::size_t length = valid_sequence(text, i, c, bad);
    EMBPRIV_CHECK(length > 0, "the text is not valid UTF-8 (byte offset " << i << ")");
    out.push_back(c);
    i += length;
  }
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string utf8_lossy(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    char32_t c = 0;
    std::size_t bad = 0;
    const std::size_t length = valid_sequence(bytes, i, c, bad);
    if (length > 0) {
      out.append(bytes, i, length);
      i += length;
    } else {
      append_utf8(out, 0xFFFD);
      i += bad;
    }
  }
  return out;
}

}  // namespace embpriv
