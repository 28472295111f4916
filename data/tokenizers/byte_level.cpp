#include "data/tokenizers/byte_level.h"

#include <array>
#include <unordered_map>
#include <vector>

#include "data/tokenizers/unicode_categories.h"

namespace embpriv {
namespace {

// bytes_to_unicode(): the printable bytes '!'..'~', '¡'..'¬', '®'..'ÿ' keep their code point;
// the other 68 bytes, in order, become U+0100, U+0101, ...
const std::array<char32_t, 256>& byte_to_char() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  return table;
}

const std::unordered_map<char32_t, unsigned char>& char_to_byte() {
  static const std::unordered_map<char32_t, unsigned char> table = [] {
    std::unordered_map<char32_t, unsigned char> t;
    for (int b = 0; b < 256; ++b) t.emplace(byte_to_char()[static_cast<std::size_t>(b)], static_cast<unsigned char>(b));
    return t;
  }();
  return table;
}

}  // namespace

std::string bytes_to_byte_level(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) append_utf8(out, byte_to_char()[b]);
  return out;
}

bool byte_level_to_bytes(const std::string& text, std::string& out) {
  std::string bytes;
  for (char32_t c : utf8_code_points(text)) {
    const auto found = char_to_byte().find(c);
    if (found == char_to_byte().end()) return false;
    bytes += static_cast<char>(found->second);
  }
  out += bytes;
  return true;
}

}  // namespace embpriv
