#pragma once
// Every occurrence of one string in a text replaced by another (left to right, not
// overlapping), as the tokenizers' Replace normalizer and decoder with a String pattern do.
#include <string>

namespace embpriv {

inline void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  std::string out;
  std::size_t at = 0;
  for (std::size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size()) {
    out.append(s, at, hit - at);
    out += to;
  }
  out.append(s, at, std::string::npos);
  s = std::move(out);
}

}  // namespace embpriv
