#include "data/tokenizers/hf_tokenizer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/error.h"
#include "data/tokenizers/bpe_merge.h"
#include "data/tokenizers/byte_level.h"
#include "data/tokenizers/hf_decoder.h"
#include "data/tokenizers/text_replace.h"
#include "data/tokenizers/unicode_categories.h"
#include "data/tokenizers/unicode_nfc.h"
#include "data/tokenizers/wordpiece.h"

namespace embpriv {
namespace {

bool is_space_byte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
// single_word's word characters: ASCII letters, digits and '_', and (an approximation of \w)
// every non-ASCII byte.
bool is_word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}

// Length of the UTF-8 character that starts with byte c (text is valid UTF-8 here).
std::size_t utf8_length(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

std::string byte_piece(unsigned char b) {
  char piece[7];
  std::snprintf(piece, sizeof piece, "<0x%02X>", b);
  return piece;
}

}  // namespace

HfTokenizer::HfTokenizer(HfTokenizerSpec spec) : spec_(std::move(spec)), added_by_first_byte_(256) {
  for (std::size_t k = 0; k < spec_.added.size(); ++k) {
    const HfAddedToken& a = spec_.added[k];
    if (a.special) special_.insert(a.id);
    added_by_first_byte_[static_cast<unsigned char>(a.content[0])].push_back(k);
  }
  for (auto& list : added_by_first_byte_) {
    std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
      return spec_.added[a].content.size() > spec_.added[b].content.size();
    });
  }
}

// The added tokens, leftmost and longest first, with their lstrip/rstrip whitespace and
// single_word condition, as the library's AddedVocabulary splits raw text.
std::vector<HfTokenizer::Stretch> HfTokenizer::split_added_tokens(const std::string& text) const {
  std::vector<Stretch> out;
  std::size_t begin = 0;  // the start of the text not yet emitted
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (std::size_t k : added_by_first_byte_[static_cast<unsigned char>(text[i])]) {
      const HfAddedToken& a = spec_.added[k];
      if (text.compare(i, a.content.size(), a.content) != 0) continue;
      std::size_t start = i, end = i + a.content.size();
      if (a.single_word && ((start > 0 && is_word_byte(text[start - 1])) || (end < text.size() && is_word_byte(text[end])))) {
        continue;
      }
      if (a.lstrip) {
        while (start > begin && is_space_byte(text[start - 1])) --start;
      }
      if (a.rstrip) {
        while (end < text.size() && is_space_byte(text[end])) ++end;
      }
      if (start > begin) out.push_back({text.substr(begin, start - begin), -1});
      out.push_back({text.substr(start, end - start), a.id});
      begin = end;
      i = end - 1;
      break;
    }
  }
  if (begin < text.size()) out.push_back({text.substr(begin), -1});
  return out;
}

std::string HfTokenizer::normalize(std::string text) const {
  for (const HfNormalizerStep& step : spec_.normalizer) {
    if (step.kind == HfNormalizerStep::prepend) {
      if (!text.empty()) text = step.text + text;  // Prepend leaves an empty text empty
    } else if (step.kind == HfNormalizerStep::replace) {
      replace_all(text, step.text, step.replacement);
    } else if (step.kind == HfNormalizerStep::nfc) {
      text = nfc(text);
    } else if (step.kind == HfNormalizerStep::bert) {  // BERT's steps: data/tokenizers/wordpiece.h
      text = bert_normalize(step.bert_options, text);
    } else if (step.kind == HfNormalizerStep::nfd) {
      text = nfd_text(text);
    } else if (step.kind == HfNormalizerStep::lowercase) {
      text = lowercase_text(text);
    } else {
      text = strip_combining_marks(text);
    }
  }
  return text;
}

namespace {

// Metaspace: spaces become the replacement, which is put first (as its scheme says, unless the
// word starts with it), and with split_words each replacement starts a new word.
void metaspace(const HfPreTokenizerStep& step, std::string word, bool at_start, std::vector<std::string>& out) {
  replace_all(word, " ", step.replacement);
  const bool prepend = step.prepend == HfPrepend::always || (step.prepend == HfPrepend::first && at_start);
  if (prepend && word.compare(0, step.replacement.size(), step.replacement) != 0) word = step.replacement + word;
  if (!step.split_words) {
    out.push_back(word);
    return;
  }
  std::size_t begin = 0;
  for (std::size_t at = word.find(step.replacement, 1); at != std::string::npos; at = word.find(step.replacement, at + 1)) {
    if (at > begin) out.push_back(word.substr(begin, at - begin));
    begin = at;
  }
  if (begin < word.size()) out.push_back(word.substr(begin));
}

}  // namespace

std::vector<std::string> HfTokenizer::pre_tokenize(const std::string& text, bool at_start) const {
  std::vector<std::string> words = {text};
  for (const HfPreTokenizerStep& step : spec_.pre_tokenizer) {
    std::vector<std::string> next;
    for (std::string& word : words) {
      if (step.kind == HfPreTokenizerStep::split) {
        for (std::string& piece : split_with_pattern(step.pattern, word)) next.push_back(std::move(piece));
        continue;
      }
      if (step.kind == HfPreTokenizerStep::metaspace) {
        metaspace(step, word, at_start && next.empty(), next);
        continue;
      }
      if (step.kind == HfPreTokenizerStep::bert) {
        for (std::string& piece : bert_pre_tokenize(word)) next.push_back(std::move(piece));
        continue;
      }
      // ByteLevel: an optional leading space, the GPT-2 split when use_regex, then each byte as
      // its character of GPT-2's alphabet.
      if (step.add_prefix_space && word.compare(0, 1, " ") != 0) word = " " + word;
      std::vector<std::string> pieces = step.use_regex ? split_with_pattern(SplitPattern::gpt2, word) : std::vector<std::string>{word};
      for (const std::string& piece : pieces) next.push_back(bytes_to_byte_level(piece));
    }
    words = std::move(next);
  }
  return words;
}

// The BPE model on one word: its characters as vocabulary ids (byte tokens <0xXX> when byte
// fallback applies, else <unk>, fused when fuse_unk), then the merges.
void HfTokenizer::encode_word(const std::string& word, std::vector<std::int64_t>& out) const {
  const HfBpeModel& m = spec_.model;
  if (spec_.wordpiece.enabled) {
    wordpiece_encode_word(m, spec_.wordpiece, word, out);
    return;
  }
  const auto id_of = [&](const std::string& s) {
    const auto found = m.ids.find(s);
    return found == m.ids.end() ? std::int64_t{-1} : found->second;
  };
  if (m.ignore_merges) {
    if (const std::int64_t whole = id_of(word); whole >= 0) {
      out.push_back(whole);
      return;
    }
  }
  std::vector<std::int64_t> symbols;
  std::vector<std::int64_t> bytes;
  for (std::size_t i = 0; i < word.size();) {
    const std::size_t n = std::min(utf8_length(static_cast<unsigned char>(word[i])), word.size() - i);
    const std::string c = word.substr(i, n);
    i += n;
    if (const std::int64_t id = id_of(c); id >= 0) {
      symbols.push_back(id);
      continue;
    }
    if (m.byte_fallback) {
      bytes.clear();
      for (unsigned char b : c) {
        const std::int64_t id = id_of(byte_piece(b));
        if (id < 0) break;
        bytes.push_back(id);
      }
      if (bytes.size() == c.size()) {
        symbols.insert(symbols.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    if (m.unk < 0) continue;  // no <unk>: the library drops the character
    if (m.fuse_unk && !symbols.empty() && symbols.back() == m.unk) continue;
    symbols.push_back(m.unk);
  }
  const std::vector<std::int64_t> merged = bpe_merge(symbols, m.merges);
  out.insert(out.end(), merged.begin(), merged.end());
}

std::vector<std::int64_t> HfTokenizer::encode(const std::string& text, bool add_special) const {
  utf8_code_points(text);  // refuses invalid UTF-8, naming the offset
  std::vector<std::int64_t> body;
  bool at_start = true;
  for (const Stretch& stretch : split_added_tokens(text)) {
    if (stretch.added >= 0) {
      body.push_back(stretch.added);
      at_start = false;
      continue;
    }
    for (const std::string& word : pre_tokenize(normalize(stretch.text), at_start)) {
      if (!word.empty()) encode_word(word, body);
    }
    at_start = false;
  }
  if (!add_special) return body;
  std::vector<std::int64_t> out;
  for (std::int64_t id : spec_.template_single) {
    if (id < 0) {
      out.insert(out.end(), body.begin(), body.end());
    } else {
      out.push_back(id);
    }
  }
  return out;
}

std::string HfTokenizer::decode(const std::vector<std::int64_t>& ids) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (std::int64_t id : ids) {
    EMBPRIV_CHECK(id >= 0 && id < size(), "token id " << id << " is outside the vocabulary [0, " << size() << ")");
    if (is_special(id)) continue;
    tokens.push_back(spec_.model.pieces[static_cast<std::size_t>(id)]);
  }
  return apply_hf_decoder(spec_.decoder, std::move(tokens));
}

}  // namespace embpriv
