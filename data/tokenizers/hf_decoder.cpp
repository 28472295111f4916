#include "data/tokenizers/hf_decoder.h"

#include <cstdio>

#include "data/tokenizers/byte_level.h"
#include "data/tokenizers/text_replace.h"
#include "data/tokenizers/unicode_categories.h"
#include "data/tokenizers/wordpiece.h"

namespace embpriv {
namespace {

// "<0xAB>" -> 0xAB; -1 for any other token.
int byte_token(const std::string& t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  int value = 0;
  for (int k = 3; k < 5; ++k) {
    const char c = t[static_cast<std::size_t>(k)];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

// ByteFallback: runs of byte tokens become their UTF-8 text, or one U+FFFD per byte when the
// run is not valid UTF-8.
std::vector<std::string> byte_fallback(const std::vector<std::string>& tokens) {
  std::vector<std::string> out;
  std::string bytes;
  std::size_t count = 0;
  const auto flush = [&] {
    if (count == 0) return;
    if (utf8_lossy(bytes) == bytes) {
      out.push_back(bytes);
    } else {
      std::string replacement;
      for (std::size_t k = 0; k < count; ++k) append_utf8(replacement, 0xFFFD);
      out.push_back(replacement);
    }
    bytes.clear();
    count = 0;
  };
  for (const std::string& t : tokens) {
    const int b = byte_token(t);
    if (b < 0) {
      flush();
      out.push_back(t);
    } else {
      bytes += static_cast<char>(b);
      ++count;
    }
  }
  flush();
  return out;
}

// Strip: up to `start` leading and `stop` trailing copies of the character from each token.
void strip(std::string& token, const std::string& c, int start, int stop) {
  if (c.empty()) return;
  for (int k = 0; k < start && token.compare(0, c.size(), c) == 0; ++k) token.erase(0, c.size());
  for (int k = 0; k < stop && token.size() >= c.size() && token.compare(token.size() - c.size(), c.size(), c) == 0; ++k) {
    token.erase(token.size() - c.size());
  }
}

// ByteLevel: the bytes the tokens spell (a token with a character outside the alphabet as its
// own UTF-8), read as UTF-8 with U+FFFD for invalid sequences.
std::string byte_level(const std::vector<std::string>& tokens) {
  std::string bytes;
  for (const std::string& t : tokens) {
    if (!byte_level_to_bytes(t, bytes)) bytes += t;
  }
  return utf8_lossy(bytes);
}

}  // namespace

std::string apply_hf_decoder(const std::vector<HfDecoderStep>& steps, std::vector<std::string> tokens) {
  if (steps.empty()) {
    std::string joined;
    for (std::size_t i = 0; i < tokens.size(); ++i) joined += (i ? " " : "") + tokens[i];
    return joined;
  }
  for (const HfDecoderStep& step : steps) {
    switch (step.kind) {
      case HfDecoderStep::replace:
        for (std::string& t : tokens) replace_all(t, step.text, step.replacement);
        break;
      case HfDecoderStep::byte_fallback: tokens = byte_fallback(tokens); break;
      case HfDecoderStep::fuse: {
        std::string fused;
        for (const std::string& t : tokens) fused += t;
        tokens = {fused};
        break;
      }
      case HfDecoderStep::strip:
        for (std::string& t : tokens) strip(t, step.text, step.start, step.stop);
        break;
      case HfDecoderStep::byte_level: tokens = {byte_level(tokens)}; break;
      case HfDecoderStep::wordpiece: tokens = wordpiece_decode(step.text, step.cleanup, std::move(tokens)); break;
      case HfDecoderStep::metaspace:
        // The replacement back to spaces; in the first token (unless the scheme is never) every
        // replacement is dropped, as the library's Metaspace decoder does.
        for (std::size_t i = 0; i < tokens.size(); ++i) {
          replace_all(tokens[i], step.text, i == 0 && step.prepend != HfPrepend::never ? "" : " ");
        }
        break;
    }
  }
  std::string text;
  for (const std::string& t : tokens) text += t;
  return text;
}

}  // namespace embpriv
