#include "data/tokenizers/word_tokenizer.h"

#include <array>
#include <cctype>

namespace embpriv {
namespace {

bool is_word_byte(unsigned char c) { return std::isalnum(c) || c >= 0x80; }

bool ends_with_lowered(const std::string& word, const std::string& suffix) {
  if (word.size() <= suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(word[word.size() - suffix.size() + i])) != suffix[i]) return false;
  }
  return true;
}

// Splits a clitic off the end of a word: "don't" -> "do" + "n't", "it's" -> "it" + "'s"
// ("DON'T" -> "DON" + "'T" when the case is kept).
void push_word(std::string word, std::vector<std::string>& out) {
  static const std::array<const char*, 7> clitics = {"n't", "'s", "'re", "'ve", "'ll", "'d", "'m"};
  for (const char* clitic : clitics) {
    const std::string c(clitic);
    if (ends_with_lowered(word, c)) {
      out.push_back(word.substr(0, word.size() - c.size()));
      out.push_back(word.substr(word.size() - c.size()));
      return;
    }
  }
  out.push_back(std::move(word));
}

std::vector<std::string> split_words(const std::string& text, bool lower) {
  std::vector<std::string> out;
  std::string word;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    // An apostrophe inside a word ("don't", "it's") stays with it, for the clitic split.
    const bool inner_apostrophe = c == '\'' && !word.empty() && i + 1 < text.size() &&
                                  is_word_byte(static_cast<unsigned char>(text[i + 1]));
    if (is_word_byte(c) || inner_apostrophe) {
      word += static_cast<char>(lower ? std::tolower(c) : c);
      continue;
    }
    if (!word.empty()) push_word(std::move(word), out);
    word.clear();
    if (!std::isspace(c)) out.emplace_back(1, static_cast<char>(c));  // punctuation
  }
  if (!word.empty()) push_word(std::move(word), out);
  return out;
}

}  // namespace

std::vector<std::string> word_tokens(const std::string& text) { return split_words(text, true); }

std::vector<std::string> cased_word_tokens(const std::string& text) { return split_words(text, false); }

WordIds word_ids(const std::string& text, const EmbeddingTable& table) {
  WordIds result;
  for (const std::string& token : word_tokens(text)) {
    const std::int64_t id = table.index_of(token);
    result.ids.push_back(id);
    result.unknown += id < 0;
  }
  return result;
}

}  // namespace embpriv
