#include "data/tokenizers/hf_tokenizer_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "data/tokenizers/hf_json_reader.h"
#include "data/tokenizers/hf_pipeline_json.h"
#include "data/tokenizers/wordpiece.h"

namespace embpriv {
namespace {

using nlohmann::json;

// The model, added tokens and post-processor (the text-processing steps: data/tokenizers/hf_pipeline_json.h).
struct Reader : HfJsonReader {
  std::int64_t vocab_id(const HfBpeModel& m, const std::string& token, const char* what) const {
    const auto found = m.ids.find(token);
    if (found == m.ids.end()) fail(std::string(what) + " '" + token + "' is not in the vocabulary");
    return found->second;
  }

  // The size of the by-id table of pieces (largest id + 1), checked before anything is allocated:
  // ids index that table, so they must be dense enough to be a vocabulary (at most half of it
  // holes, plus 1024 spare ids). A sparse or huge id (10^8, 2^63 - 1 in a 230-byte file) would
  // otherwise allocate gigabytes or overflow the size.
  std::int64_t table_size(const std::unordered_map<std::string, std::int64_t>& vocab,
                          const std::vector<HfAddedToken>& added) const {
    if (vocab.empty()) fail("model.vocab is empty: a tokenizer needs a vocabulary");
    std::vector<std::int64_t> ids;
    ids.reserve(vocab.size() + added.size());
    for (const auto& entry : vocab) ids.push_back(entry.second);
    for (const HfAddedToken& a : added) ids.push_back(a.id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const auto distinct = static_cast<std::int64_t>(ids.size());
    const std::int64_t largest = ids.back();  // ids were checked >= 0, so no sum below overflows
    if (largest >= 2 * distinct + 1024) {
      fail("token id " + std::to_string(largest) + " is too sparse for a vocabulary of " + std::to_string(distinct) +
           " distinct ids (ids must lie below 2 x " + std::to_string(distinct) + " + 1024 = " +
           std::to_string(2 * distinct + 1024) + ")");
    }
    return largest + 1;
  }

  void bpe_model(const json& j, HfTokenizerSpec& spec) const {
    const std::string t = type(j, "model");
    if (t != "BPE") fail("unsupported model type '" + t + "' (supported: BPE, WordPiece)");
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
    for (const auto& [token, id] : vocab.items()) {
      if (!id.is_number_integer() || id.get<std::int64_t>() < 0) fail("vocab id of '" + token + "' must be an integer >= 0");
      m.ids.emplace(token, id.get<std::int64_t>());
    }
    const std::int64_t size = table_size(m.ids, spec.added);
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
      if (t == "BertProcessing" || t == "RobertaProcessing") {  // [CLS] A [SEP] / <s> A </s>: data/tokenizers/wordpiece.h
        spec.template_single = read_bert_processing(*this, *s, static_cast<std::int64_t>(spec.model.pieces.size()));
        continue;
      }
      if (t != "TemplateProcessing") {
        fail("unsupported post_processor type '" + t +
             "' (supported: Sequence, TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel)");
      }
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
  const Reader r{{path}};
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
    spec.normalizer = read_hf_normalizer(r, root.value("normalizer", json()));
    spec.pre_tokenizer = read_hf_pre_tokenizer(r, root.value("pre_tokenizer", json()));
    const json& model = r.at(root, "model", "tokenizer.json");
    if (r.type(model, "model") == "WordPiece") {  // data/tokenizers/wordpiece.h: its vocabulary read as BPE's, no merges
      spec.wordpiece = read_wordpiece_options(r, model);
      r.bpe_model(wordpiece_vocabulary_as_bpe(r, model), spec);
    } else {
      r.bpe_model(model, spec);
    }
    r.post_processor(root.value("post_processor", json()), spec);
    spec.decoder = read_hf_decoder(r, root.value("decoder", json()));
  } catch (const json::exception& e) {  // a field of the wrong JSON type
    r.fail(std::string("unexpected value: ") + e.what());
  }
  return spec;
}

}  // namespace embpriv
