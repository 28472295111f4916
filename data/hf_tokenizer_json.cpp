#include "data/hf_tokenizer_json.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "core/error.h"

namespace embpriv {
namespace {

using nlohmann::json;

// One reader per tokenizer.json: every error names the file.
struct Reader {
  std::string path;

  [[noreturn]] void fail(const std::string& what) const { throw Error(path + ": " + what); }

  const json& at(const json& j, const char* key, const char* where) const {
    if (!j.is_object() || !j.contains(key)) fail(std::string(where) + " has no \"" + key + "\"");
    return j.at(key);
  }
  bool flag(const json& j, const char* key, bool fallback) const {
    if (!j.contains(key) || j.at(key).is_null()) return fallback;
    if (!j.at(key).is_boolean()) fail(std::string("\"") + key + "\" must be true or false");
    return j.at(key).get<bool>();
  }
  std::string text(const json& j, const char* key, const char* where) const {
    const json& v = at(j, key, where);
    if (!v.is_string()) fail(std::string(where) + "'s \"" + key + "\" must be a string");
    return v.get<std::string>();
  }
  std::string type(const json& j, const char* where) const { return text(j, "type", where); }

  // {"String": s}: s (a {"Regex": r} is refused: no step here needs one).
  std::string string_pattern(const json& j, const char* where) const {
    const json& p = at(j, "pattern", where);
    if (p.contains("String")) return text(p, "String", where);
    fail(std::string(where) + " with a non-String pattern " + p.dump() + " is not supported");
  }

  // The steps of a component: a Sequence's members in order, or the one component.
  std::vector<const json*> steps(const json& j, const char* list_key, const char* where) const {
    if (j.is_null()) return {};
    if (type(j, where) != "Sequence") return {&j};
    std::vector<const json*> out;
    const json& list = at(j, list_key, where);
    if (!list.is_array()) fail(std::string(where) + " Sequence's \"" + list_key + "\" must be a list");
    for (const json& member : list) {
      for (const json* step : steps(member, list_key, where)) out.push_back(step);
    }
    return out;
  }

  std::vector<HfNormalizerStep> normalizer(const json& j) const {
    std::vector<HfNormalizerStep> out;
    for (const json* s : steps(j, "normalizers", "normalizer")) {
      const std::string t = type(*s, "normalizer");
      if (t == "Prepend") {
        out.push_back({HfNormalizerStep::prepend, text(*s, "prepend", "Prepend normalizer"), ""});
      } else if (t == "Replace") {
        out.push_back({HfNormalizerStep::replace, string_pattern(*s, "Replace normalizer"),
                       text(*s, "content", "Replace normalizer")});
      } else if (t == "NFC") {
        out.push_back({HfNormalizerStep::nfc, "", ""});
      } else {
        fail("unsupported normalizer type '" + t + "' (supported: Sequence, Prepend, Replace, NFC)");
      }
    }
    return out;
  }

  // Metaspace's fields: replacement, and prepend_scheme (or, in older files, add_prefix_space).
  HfPrepend prepend_scheme(const json& s) const {
    if (!s.contains("prepend_scheme") || s.at("prepend_scheme").is_null()) {
      return flag(s, "add_prefix_space", true) ? HfPrepend::always : HfPrepend::never;
    }
    const std::string scheme = text(s, "prepend_scheme", "Metaspace");
    if (scheme == "always") return HfPrepend::always;
    if (scheme == "first") return HfPrepend::first;
    if (scheme == "never") return HfPrepend::never;
    fail("Metaspace prepend_scheme '" + scheme + "' is not one of always, first, never");
  }

  std::vector<HfPreTokenizerStep> pre_tokenizer(const json& j) const {
    std::vector<HfPreTokenizerStep> out;
    for (const json* s : steps(j, "pretokenizers", "pre_tokenizer")) {
      const std::string t = type(*s, "pre_tokenizer");
      HfPreTokenizerStep step{HfPreTokenizerStep::split, SplitPattern::gpt2, false, false, "", HfPrepend::always, false};
      if (t == "Split") {
        const json& p = at(*s, "pattern", "Split pre-tokenizer");
        if (!p.contains("Regex")) fail("Split pre-tokenizer with pattern " + p.dump() + " is not supported (a Regex is)");
        try {
          step.pattern = split_pattern_from_text(text(p, "Regex", "Split pattern"));
        } catch (const Error& e) {
          fail(e.what());
        }
        const std::string behavior = s->value("behavior", std::string("Isolated"));
        if (behavior != "Isolated" || flag(*s, "invert", false)) {
          fail("Split pre-tokenizer behavior '" + behavior + "' (invert " + (flag(*s, "invert", false) ? "true" : "false") +
               ") is not supported (Isolated, invert false is)");
        }
      } else if (t == "ByteLevel") {
        step.kind = HfPreTokenizerStep::byte_level;
        step.use_regex = flag(*s, "use_regex", true);
        step.add_prefix_space = flag(*s, "add_prefix_space", true);
      } else if (t == "Metaspace") {
        step.kind = HfPreTokenizerStep::metaspace;
        step.replacement = text(*s, "replacement", "Metaspace pre-tokenizer");
        if (step.replacement.empty()) fail("Metaspace pre-tokenizer has an empty replacement");
        step.prepend = prepend_scheme(*s);
        step.split_words = flag(*s, "split", true);
      } else {
        fail("unsupported pre_tokenizer type '" + t + "' (supported: Sequence, Split, ByteLevel, Metaspace)");
      }
      out.push_back(step);
    }
    return out;
  }

  std::vector<HfDecoderStep> decoder(const json& j) const {
    std::vector<HfDecoderStep> out;
    for (const json* s : steps(j, "decoders", "decoder")) {
      const std::string t = type(*s, "decoder");
      HfDecoderStep step{HfDecoderStep::fuse, "", ""};
      if (t == "Replace") {
        step = {HfDecoderStep::replace, string_pattern(*s, "Replace decoder"), text(*s, "content", "Replace decoder")};
      } else if (t == "ByteFallback") {
        step.kind = HfDecoderStep::byte_fallback;
      } else if (t == "Fuse") {
        step.kind = HfDecoderStep::fuse;
      } else if (t == "Strip") {
        step = {HfDecoderStep::strip, text(*s, "content", "Strip decoder"), ""};
        step.start = at(*s, "start", "Strip decoder").get<int>();
        step.stop = at(*s, "stop", "Strip decoder").get<int>();
      } else if (t == "ByteLevel") {
        step.kind = HfDecoderStep::byte_level;
      } else if (t == "Metaspace") {
        step = {HfDecoderStep::metaspace, text(*s, "replacement", "Metaspace decoder"), ""};
        step.prepend = prepend_scheme(*s);
      } else {
        fail("unsupported decoder type '" + t +
             "' (supported: Sequence, Replace, ByteFallback, Fuse, Strip, ByteLevel, Metaspace)");
      }
      out.push_back(step);
    }
    return out;
  }

  std::int64_t vocab_id(const HfBpeModel& m, const std::string& token, const char* what) const {
    const auto found = m.ids.find(token);
    if (found == m.ids.end()) fail(std::string(what) + " '" + token + "' is not in the vocabulary");
    return found->second;
  }

  void bpe_model(const json& j, HfTokenizerSpec& spec) const {
    const std::string t = type(j, "model");
    if (t != "BPE") fail("unsupported model type '" + t + "' (supported: BPE)");
    if (j.contains("dropout") && !j.at("dropout").is_null() && j.at("dropout").get<double>() != 0.0) {
      fail("BPE dropout is a training option; a tokenizer with dropout " + j.at("dropout").dump() + " is not supported");
    }
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
      if (j.contains(key) && !j.at(key).is_null() && j.at(key) != "") {
        fail(std::string("BPE with a ") + key + " (" + j.at(key).dump() + ") is not supported");
      }
    }
    HfBpeModel& m = spec.model;
    m.byte_fallback = flag(j, "byte_fallback", false);
    m.fuse_unk = flag(j, "fuse_unk", false);
    m.ignore_merges = flag(j, "ignore_merges", false);
    const json& vocab = at(j, "vocab", "model");
    if (!vocab.is_object()) fail("model.vocab must be an object of token: id");
    std::int64_t size = 0;
    for (const auto& [token, id] : vocab.items()) {
      if (!id.is_number_integer() || id.get<std::int64_t>() < 0) fail("vocab id of '" + token + "' must be an integer >= 0");
      m.ids.emplace(token, id.get<std::int64_t>());
      size = std::max(size, id.get<std::int64_t>() + 1);
    }
    for (const HfAddedToken& a : spec.added) size = std::max(size, a.id + 1);
    m.pieces.assign(static_cast<std::size_t>(size), std::string());
    for (const auto& [token, id] : m.ids) m.pieces[static_cast<std::size_t>(id)] = token;
    for (const HfAddedToken& a : spec.added) m.pieces[static_cast<std::size_t>(a.id)] = a.content;
    if (j.contains("unk_token") && !j.at("unk_token").is_null()) m.unk = vocab_id(m, j.at("unk_token").get<std::string>(), "unk_token");
    const json& merges = at(j, "merges", "model");
    if (!merges.is_array()) fail("model.merges must be a list");
    for (const json& merge : merges) {
      std::string left, right;
      if (merge.is_string()) {  // "left right"
        const std::string s = merge.get<std::string>();
        const std::size_t space = s.find(' ');
        if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) fail("merge '" + s + "' is not two tokens");
        left = s.substr(0, space);
        right = s.substr(space + 1);
      } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
        left = merge[0].get<std::string>();
        right = merge[1].get<std::string>();
      } else {
        fail("merge " + merge.dump() + " is neither \"left right\" nor [left, right]");
      }
      const std::int64_t left_id = vocab_id(m, left, "merge token");
      const std::int64_t right_id = vocab_id(m, right, "merge token");
      m.merges.add(left_id, right_id, vocab_id(m, left + right, "merged token"));
    }
  }

  std::vector<HfAddedToken> added_tokens(const json& root) const {
    std::vector<HfAddedToken> out;
    if (!root.contains("added_tokens") || root.at("added_tokens").is_null()) return out;
    for (const json& a : root.at("added_tokens")) {
      HfAddedToken t;
      const json& id = at(a, "id", "added token");
      if (!id.is_number_integer() || id.get<std::int64_t>() < 0) fail("added token id " + id.dump() + " must be an integer >= 0");
      t.id = id.get<std::int64_t>();
      t.content = text(a, "content", "added token");
      if (t.content.empty()) fail("added token " + std::to_string(t.id) + " is empty");
      t.special = flag(a, "special", false);
      t.lstrip = flag(a, "lstrip", false);
      t.rstrip = flag(a, "rstrip", false);
      t.single_word = flag(a, "single_word", false);
      out.push_back(t);
    }
    return out;
  }

  // TemplateProcessing's "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}].
  void post_processor(const json& j, HfTokenizerSpec& spec) const {
    for (const json* s : steps(j, "processors", "post_processor")) {
      const std::string t = type(*s, "post_processor");
      if (t == "ByteLevel") continue;  // it adjusts offsets only
      if (t != "TemplateProcessing") fail("unsupported post_processor type '" + t + "' (supported: Sequence, TemplateProcessing, ByteLevel)");
      const json& special = at(*s, "special_tokens", "TemplateProcessing");
      spec.template_single.clear();
      for (const json& piece : at(*s, "single", "TemplateProcessing")) {
        if (piece.contains("Sequence")) {
          spec.template_single.push_back(-1);
        } else if (piece.contains("SpecialToken")) {
          const std::string name = text(piece.at("SpecialToken"), "id", "TemplateProcessing special token");
          for (const json& id : at(at(special, name.c_str(), "TemplateProcessing special_tokens"), "ids", "special token")) {
            if (!id.is_number_integer() || id.get<std::int64_t>() < 0 ||
                id.get<std::int64_t>() >= static_cast<std::int64_t>(spec.model.pieces.size())) {
              fail("TemplateProcessing special token '" + name + "' has id " + id.dump() + " outside the vocabulary");
            }
            spec.template_single.push_back(id.get<std::int64_t>());
          }
        } else {
          fail("TemplateProcessing piece " + piece.dump() + " is neither a Sequence nor a SpecialToken");
        }
      }
    }
  }
};

}  // namespace

HfTokenizerSpec read_hf_tokenizer_json(const std::string& path) {
  const Reader r{path};
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read tokenizer '" << path << "'");
  json root;
  try {
    root = json::parse(in);
  } catch (const json::exception& e) {
    r.fail(std::string("malformed JSON (truncated?): ") + e.what());
  }
  if (!root.is_object()) r.fail("a tokenizer.json must hold an object");
  HfTokenizerSpec spec;
  try {
    spec.added = r.added_tokens(root);
    spec.normalizer = r.normalizer(root.value("normalizer", json()));
    spec.pre_tokenizer = r.pre_tokenizer(root.value("pre_tokenizer", json()));
    r.bpe_model(r.at(root, "model", "tokenizer.json"), spec);
    r.post_processor(root.value("post_processor", json()), spec);
    spec.decoder = r.decoder(root.value("decoder", json()));
  } catch (const json::exception& e) {  // a field of the wrong JSON type
    r.fail(std::string("unexpected value: ") + e.what());
  }
  return spec;
}

}  // namespace embpriv
