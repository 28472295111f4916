#include "data/tokenizers/hf_pipeline_json.h"

#include "data/tokenizers/wordpiece.h"

namespace embpriv {
namespace {

using json = nlohmann::json;

// Metaspace's fields: replacement, and prepend_scheme (or, in older files, add_prefix_space).
HfPrepend prepend_scheme(const HfJsonReader& r, const json& s) {
  if (!s.contains("prepend_scheme") || s.at("prepend_scheme").is_null()) {
    return r.flag(s, "add_prefix_space", true) ? HfPrepend::always : HfPrepend::never;
  }
  const std::string scheme = r.text(s, "prepend_scheme", "Metaspace");
  if (scheme == "always") return HfPrepend::always;
  if (scheme == "first") return HfPrepend::first;
  if (scheme == "never") return HfPrepend::never;
  r.fail("Metaspace prepend_scheme '" + scheme + "' is not one of always, first, never");
}

}  // namespace

std::vector<HfNormalizerStep> read_hf_normalizer(const HfJsonReader& r, const json& j) {
  std::vector<HfNormalizerStep> out;
  for (const json* s : r.steps(j, "normalizers", "normalizer")) {
    const std::string t = r.type(*s, "normalizer");
    if (t == "Prepend") {
      out.push_back({HfNormalizerStep::prepend, r.text(*s, "prepend", "Prepend normalizer"), ""});
    } else if (t == "Replace") {
      out.push_back({HfNormalizerStep::replace, r.string_pattern(*s, "Replace normalizer"),
                     r.text(*s, "content", "Replace normalizer")});
    } else if (t == "NFC") {
      out.push_back({HfNormalizerStep::nfc, "", ""});
    } else if (t == "BertNormalizer") {  // data/tokenizers/wordpiece.h
      out.push_back({HfNormalizerStep::bert, "", "", read_bert_normalizer(r, *s)});
    } else if (t == "NFD" || t == "Lowercase" || t == "StripAccents") {
      out.push_back({t == "NFD" ? HfNormalizerStep::nfd : t == "Lowercase" ? HfNormalizerStep::lowercase
                                                                           : HfNormalizerStep::strip_accents, "", ""});
    } else {
      r.fail("unsupported normalizer type '" + t +
             "' (supported: Sequence, Prepend, Replace, NFC, NFD, Lowercase, StripAccents, BertNormalizer)");
    }
  }
  return out;
}

std::vector<HfPreTokenizerStep> read_hf_pre_tokenizer(const HfJsonReader& r, const json& j) {
  std::vector<HfPreTokenizerStep> out;
  for (const json* s : r.steps(j, "pretokenizers", "pre_tokenizer")) {
    const std::string t = r.type(*s, "pre_tokenizer");
    HfPreTokenizerStep step{HfPreTokenizerStep::split, SplitPattern::gpt2, false, false, "", HfPrepend::always, false};
    if (t == "Split") {
      const json& p = r.at(*s, "pattern", "Split pre-tokenizer");
      if (!p.contains("Regex")) r.fail("Split pre-tokenizer with pattern " + p.dump() + " is not supported (a Regex is)");
      try {
        step.pattern = split_pattern_from_text(r.text(p, "Regex", "Split pattern"));
      } catch (const Error& e) {
        r.fail(e.what());
      }
      const std::string behavior = s->value("behavior", std::string("Isolated"));
      if (behavior != "Isolated" || r.flag(*s, "invert", false)) {
        r.fail("Split pre-tokenizer behavior '" + behavior + "' (invert " + (r.flag(*s, "invert", false) ? "true" : "false") +
             ") is not supported (Isolated, invert false is)");
      }
    } else if (t == "ByteLevel") {
      step.kind = HfPreTokenizerStep::byte_level;
      step.use_regex = r.flag(*s, "use_regex", true);
      step.add_prefix_space = r.flag(*s, "add_prefix_space", true);
    } else if (t == "Metaspace") {
      step.kind = HfPreTokenizerStep::metaspace;
      step.replacement = r.text(*s, "replacement", "Metaspace pre-tokenizer");
      if (step.replacement.empty()) r.fail("Metaspace pre-tokenizer has an empty replacement");
      step.prepend = prepend_scheme(r, *s);
      step.split_words = r.flag(*s, "split", true);
    } else if (t == "BertPreTokenizer") {  // data/tokenizers/wordpiece.h
      step.kind = HfPreTokenizerStep::bert;
    } else {
      r.fail("unsupported pre_tokenizer type '" + t +
             "' (supported: Sequence, Split, ByteLevel, Metaspace, BertPreTokenizer)");
    }
    out.push_back(step);
  }
  return out;
}

std::vector<HfDecoderStep> read_hf_decoder(const HfJsonReader& r, const json& j) {
  std::vector<HfDecoderStep> out;
  for (const json* s : r.steps(j, "decoders", "decoder")) {
    const std::string t = r.type(*s, "decoder");
    HfDecoderStep step{HfDecoderStep::fuse, "", ""};
    if (t == "Replace") {
      step = {HfDecoderStep::replace, r.string_pattern(*s, "Replace decoder"), r.text(*s, "content", "Replace decoder")};
    } else if (t == "ByteFallback") {
      step.kind = HfDecoderStep::byte_fallback;
    } else if (t == "Fuse") {
      step.kind = HfDecoderStep::fuse;
    } else if (t == "Strip") {
      step = {HfDecoderStep::strip, r.text(*s, "content", "Strip decoder"), ""};
      step.start = r.at(*s, "start", "Strip decoder").get<int>();
      step.stop = r.at(*s, "stop", "Strip decoder").get<int>();
    } else if (t == "ByteLevel") {
      step.kind = HfDecoderStep::byte_level;
    } else if (t == "Metaspace") {
      step = {HfDecoderStep::metaspace, r.text(*s, "replacement", "Metaspace decoder"), ""};
      step.prepend = prepend_scheme(r, *s);
    } else if (t == "WordPiece") {  // data/tokenizers/wordpiece.h
      step = {HfDecoderStep::wordpiece, s->contains("prefix") ? r.text(*s, "prefix", "WordPiece decoder") : "##", ""};
      step.cleanup = r.flag(*s, "cleanup", true);
    } else {
      r.fail("unsupported decoder type '" + t +
           "' (supported: Sequence, Replace, ByteFallback, Fuse, Strip, ByteLevel, Metaspace, WordPiece)");
    }
    out.push_back(step);
  }
  return out;
}

}  // namespace embpriv
