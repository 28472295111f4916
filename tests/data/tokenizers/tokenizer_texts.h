#pragma once
// Real text for the tokenizer tests: the sentiment sentences (../shared/data/sentiment), lines
// of SpamAssassin e-mails (headers and bodies: punctuation, URLs, e-mail addresses, odd
// whitespace) and lines in other scripts (accents, CJK, emoji). Lines that are not valid UTF-8,
// or that hold an added token's text (<s>, <|...|>, which tokenizer.json cuts out but the npm
// encoders do not), are left out.
#include <string>
#include <vector>

#include "data/tables/data_paths.h"
#include "data/corpora/sentiment_corpus.h"
#include "data/corpora/spam_assassin.h"
#include "data/tokenizers/unicode_categories.h"
#include "tests/test_data.h"

namespace embpriv {

inline std::vector<std::string> non_ascii_lines() {
  return {
      "Crème brûlée, naïve façade; São Paulo über Zürich — “quoted” ‘text’…",
      "日本語のテキスト、東京タワー。中文句子：你好，世界！한국어 문장입니다.",
      "Emoji: 🙂😀👍🏽 👨‍👩‍👧 ❤️ 🇫🇷 and ZWJ sequences",
      "Ελληνικά και Русский текст, עברית, العربية, हिन्दी",
      "Numbers: 1234567 ٣٤٥ ½ ² Ⅻ 12.5% $1,000,000",
      "Contractions: it's I'm we'll they've she'd you're IT'S WE'LL Don't",
      "  leading spaces, trailing spaces   ",
      "tabs\tand\t\tmore  \t mixed   whitespace",
      "line with carriage return\r",
      "\u00a0no-break\u3000ideographic\u2003em space",
      "mañana🙂ñ🙂ñ",
      "x",
      "",
  };
}

inline bool usable_line(const std::string& line) {
  return utf8_lossy(line) == line && line.find("<s>") == std::string::npos && line.find("</s>") == std::string::npos &&
         line.find("<unk>") == std::string::npos && line.find("<|") == std::string::npos;
}

// The sentiment sentences, every `email_step`-th e-mail's lines, and non_ascii_lines().
inline std::vector<std::string> tokenizer_test_lines(std::size_t email_step = 12) {
  std::vector<std::string> lines;
  for (const char* file : {"sentiment/amazon.json", "sentiment/imdb.json", "sentiment/yelp.json"}) {
    for (const LabelledSentence& s : load_sentiment_sentences(shared_data(file))) {
      if (usable_line(s.text)) lines.push_back(s.text);
    }
  }
  const std::vector<Email> emails = load_spam_assassin(resolve_data_path(kSpamAssassinPackage));
  for (std::size_t i = 0; i < emails.size(); i += email_step) {
    const std::string text = emails[i].headers + "\n" + emails[i].body;
    std::size_t at = 0;
    while (at < text.size()) {
      std::size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(at, end - at);
      if (usable_line(line)) lines.push_back(line);
      at = end + 1;
    }
  }
  for (const std::string& line : non_ascii_lines()) lines.push_back(line);
  return lines;
}

}  // namespace embpriv
