#include "data/tokenizers/wordpiece.h"

#include "data/tokenizers/text_replace.h"
#include "data/tokenizers/unicode_bert.h"
#include "data/tokenizers/unicode_nfc.h"

namespace embpriv {
namespace {

using nlohmann::json;

std::string to_utf8(const std::vector<char32_t>& code_points) {
  std::string out;
  out.reserve(code_points.size());
  for (char32_t c : code_points) append_utf8(out, c);
  return out;
}

std::int64_t lookup(const HfBpeModel& vocabulary, const std::string& piece) {
  const auto found = vocabulary.ids.find(piece);
  return found == vocabulary.ids.end() ? -1 : found->second;
}

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

void wordpiece_encode_word(const HfBpeModel& vocabulary, const HfWordPiece& options, const std::string& word,
                           std::vector<std::int64_t>& out) {
  std::int64_t characters = 0;
  for (char c : word) characters += is_continuation_byte(c) ? 0 : 1;
  if (characters > options.max_input_chars_per_word) {
    out.push_back(vocabulary.unk);
    return;
  }
  // models/wordpiece, tokenize: from each start, the longest piece in the vocabulary (with the
  // prefix unless at the word's start); a start no piece fits makes the whole word unknown.
  std::vector<std::int64_t> pieces;
  for (std::size_t start = 0; start < word.size();) {
    std::size_t end = word.size();
    std::int64_t id = -1;
    while (start < end) {
      const std::string piece = (start > 0 ? options.prefix : std::string()) + word.substr(start, end - start);
      if ((id = lookup(vocabulary, piece)) >= 0) break;
      do {
        --end;
      } while (end > start && is_continuation_byte(word[end]));
    }
    if (id < 0) {
      out.push_back(vocabulary.unk);
      return;
    }
    pieces.push_back(id);
    start = end;
  }
  out.insert(out.end(), pieces.begin(), pieces.end());
}

std::string bert_normalize(const HfBertNormalizer& options, const std::string& text) {
  std::vector<char32_t> s = utf8_code_points(text), next;
  if (options.clean_text) {  // normalizers/bert.rs, do_clean_text
    for (char32_t c : s) {
      if (c == 0 || c == 0xFFFD || is_bert_control(c)) continue;
      next.push_back(is_bert_whitespace(c) ? U' ' : c);
    }
    s.swap(next);
  }
  if (options.handle_chinese_chars) {  // do_handle_chinese_chars
    next.clear();
    for (char32_t c : s) {
      if (is_chinese_char(c)) {
        next.insert(next.end(), {U' ', c, U' '});
      } else {
        next.push_back(c);
      }
    }
    s.swap(next);
  }
  if (options.strip_accents) {  // do_strip_accents: NFD, then drop Mn
    next.clear();
    for (char32_t c : nfd_code_points(s)) {
      if (!is_mark_nonspacing(c)) next.push_back(c);
    }
    s.swap(next);
  }
  if (options.lowercase) {  // do_lowercase
    next.clear();
    for (char32_t c : s) append_lowercase(c, next);
    s.swap(next);
  }
  return to_utf8(s);
}

std::string nfd_text(const std::string& text) { return to_utf8(nfd_code_points(utf8_code_points(text))); }

std::string lowercase_text(const std::string& text) {
  std::vector<char32_t> out;
  for (char32_t c : utf8_code_points(text)) append_lowercase(c, out);
  return to_utf8(out);
}

std::string strip_combining_marks(const std::string& text) {
  std::vector<char32_t> out;
  for (char32_t c : utf8_code_points(text)) {
    if (!is_combining_mark(c)) out.push_back(c);
  }
  return to_utf8(out);
}

std::vector<std::string> bert_pre_tokenize(const std::string& text) {
  // pre_tokenizers/bert.rs: split(char::is_whitespace, Removed), then split(is_bert_punc, Isolated).
  std::vector<std::string> words;
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (char32_t c : utf8_code_points(text)) {
    if (is_whitespace(c)) {
      flush();
    } else if (is_bert_punctuation(c)) {
      flush();
      append_utf8(word, c);
      flush();
    } else {
      append_utf8(word, c);
    }
  }
  flush();
  return words;
}

std::vector<std::string> wordpiece_decode(const std::string& prefix, bool cleanup, std::vector<std::string> tokens) {
  // decoders/wordpiece.rs, decode_chain and cleanup.
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    std::string& token = tokens[i];
    if (i != 0) {
      if (token.compare(0, prefix.size(), prefix) == 0) {
        token.erase(0, prefix.size());
      } else {
        token = " " + token;
      }
    }
    if (cleanup) {
      for (const auto& [from, to] : std::initializer_list<std::pair<const char*, const char*>>{
               {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"},
               {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}}) {
        replace_all(token, from, to);
      }
    }
  }
  return tokens;
}

HfBertNormalizer read_bert_normalizer(const HfJsonReader& r, const json& j) {
  HfBertNormalizer options;
  options.clean_text = r.flag(j, "clean_text", true);
  options.handle_chinese_chars = r.flag(j, "handle_chinese_chars", true);
  options.lowercase = r.flag(j, "lowercase", true);
  options.strip_accents = r.flag(j, "strip_accents", options.lowercase);  // null: follows lowercase
  return options;
}

HfWordPiece read_wordpiece_options(const HfJsonReader& r, const json& model) {
  HfWordPiece options;
  options.enabled = true;
  if (model.contains("continuing_subword_prefix") && !model.at("continuing_subword_prefix").is_null()) {
    options.prefix = r.text(model, "continuing_subword_prefix", "WordPiece model");
  }
  if (model.contains("max_input_chars_per_word") && !model.at("max_input_chars_per_word").is_null()) {
    const json& n = model.at("max_input_chars_per_word");
    // models/wordpiece: a word of more characters is the unk token, so 0 would make every word
    // [UNK] (a tokenizer that reads no text; transformers' BERT files say 100).
    if (!n.is_number_integer() || n.get<std::int64_t>() < 1) {
      r.fail("WordPiece model's \"max_input_chars_per_word\" must be an integer >= 1 (0 makes every word the unk "
             "token), got " + n.dump());
    }
    options.max_input_chars_per_word = n.get<std::int64_t>();
  }
  return options;
}

json wordpiece_vocabulary_as_bpe(const HfJsonReader& r, const json& model) {
  std::string unk = "[UNK]";
  if (model.contains("unk_token") && !model.at("unk_token").is_null()) unk = r.text(model, "unk_token", "WordPiece model");
  return json{{"type", "BPE"}, {"vocab", r.at(model, "vocab", "model")}, {"merges", json::array()}, {"unk_token", unk}};
}

std::vector<std::int64_t> read_bert_processing(const HfJsonReader& r, const json& processor, std::int64_t vocabulary_size) {
  const std::string type = r.type(processor, "post_processor");
  const auto id_of = [&](const char* key) {
    const json& pair = r.at(processor, key, type.c_str());
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_number_integer()) {
      r.fail(type + "'s \"" + key + "\" must be [token, id], got " + pair.dump());
    }
    const std::int64_t id = pair[1].get<std::int64_t>();
    if (id < 0 || id >= vocabulary_size) {
      r.fail(type + "'s \"" + key + "\" token '" + pair[0].get<std::string>() + "' has id " + std::to_string(id) +
             " outside the vocabulary [0, " + std::to_string(vocabulary_size) + ")");
    }
    return id;
  };
  return {id_of("cls"), -1, id_of("sep")};
}

}  // namespace embpriv
