#include "data/tokenizers/unicode_nfc.h"

#include <algorithm>
#include <vector>

#include "data/tokenizers/unicode_categories.h"

namespace embpriv {
namespace {

// Hangul syllables (Unicode sec. 3.12): S = SBase + (L * VCount + V) * TCount + T.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kSCount = kLCount * kVCount * kTCount;

unsigned char combining_class(char32_t c) {
  using namespace nfc_tables;
  const CombiningClassRange* end = kCombiningClasses + kCombiningClasses_count;
  const CombiningClassRange* it = std::upper_bound(kCombiningClasses, end, c,
                                                   [](char32_t v, const CombiningClassRange& r) { return v < r.first; });
  return it != kCombiningClasses && c <= (it - 1)->last ? (it - 1)->ccc : 0;
}

void decompose(char32_t c, std::vector<char32_t>& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const char32_t s = c - kSBase;
    out.push_back(kLBase + s / (kVCount * kTCount));
    out.push_back(kVBase + (s % (kVCount * kTCount)) / kTCount);
    if (s % kTCount != 0) out.push_back(kTBase + s % kTCount);
    return;
  }
  using namespace nfc_tables;
  const Decomposition* end = kDecompositions + kDecompositions_count;
  const Decomposition* it =
      std::lower_bound(kDecompositions, end, c, [](const Decomposition& d, char32_t v) { return d.from < v; });
  if (it == end || it->from != c) {
    out.push_back(c);
    return;
  }
  decompose(it->first, out);
  if (it->second != 0) decompose(it->second, out);
}

// The primary composite of a pair, or 0.
char32_t compose(char32_t first, char32_t second) {
  if (first >= kLBase && first < kLBase + kLCount && second >= kVBase && second < kVBase + kVCount) {
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  }
  if (first >= kSBase && first < kSBase + kSCount && (first - kSBase) % kTCount == 0 && second > kTBase &&
      second < kTBase + kTCount) {
    return first + (second - kTBase);
  }
  using namespace nfc_tables;
  const Composition* end = kCompositions + kCompositions_count;
  const Composition* it = std::lower_bound(kCompositions, end, std::pair{first, second}, [](const Composition& c, auto v) {
    return c.first != v.first ? c.first < v.first : c.second < v.second;
  });
  return it != end && it->first == first && it->second == second ? it->composite : 0;
}

}  // namespace

std::vector<char32_t> nfd_code_points(const std::vector<char32_t>& input) {
  std::vector<char32_t> s;
  s.reserve(input.size());
  for (char32_t c : input) decompose(c, s);
  // Canonical ordering: each run of non-starters stably sorted by combining class.
  for (std::size_t i = 0; i < s.size();) {
    if (combining_class(s[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < s.size() && combining_class(s[j]) != 0) ++j;
    std::stable_sort(s.begin() + static_cast<std::ptrdiff_t>(i), s.begin() + static_cast<std::ptrdiff_t>(j),
                     [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    i = j;
  }
  return s;
}

std::string nfc(const std::string& text) {
  const std::vector<char32_t> input = utf8_code_points(text);
  if (std::all_of(input.begin(), input.end(), [](char32_t c) { return c < 0x300; })) return text;  // below U+0300 all is NFC
  std::vector<char32_t> s = nfd_code_points(input);
  // Canonical composition (UAX #15 sec. 1.3): a character composes with the last starter unless
  // blocked by a character of equal or higher class in between.
  std::size_t starter = 0, kept = s.empty() ? 0 : 1;
  int last_class = s.empty() ? 0 : (combining_class(s[0]) == 0 ? 0 : 256);
  bool have_starter = !s.empty() && combining_class(s[0]) == 0;
  for (std::size_t i = 1; i < s.size(); ++i) {
    const char32_t c = s[i];
    const int cls = combining_class(c);
    const char32_t composite = have_starter ? compose(s[starter], c) : 0;
    if (composite != 0 && (last_class < cls || last_class == 0)) {
      s[starter] = composite;
      continue;
    }
    if (cls == 0) {
      starter = kept;
      have_starter = true;
    }
    last_class = cls;
    s[kept++] = c;
  }
  s.resize(kept);
  std::string out;
  out.reserve(text.size());
  for (char32_t c : s) append_utf8(out, c);
  return out;
}

}  // namespace embpriv
