#include "models/llama2c_to_hf.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "core/atomic_file.h"
#include "core/error.h"
#include "data/tables/embedding_formats.h"
#include "data/tokenizers/llama2c_tokenizer.h"

namespace embpriv {
namespace {

using nlohmann::json;

// "▁" (U+2581), SentencePiece's mark for a space.
const std::string kSpaceMark = "\xE2\x96\x81";

std::string with_space_marks(const std::string& piece) {
  std::string out;
  for (const char ch : piece) out += ch == ' ' ? kSpaceMark : std::string(1, ch);
  return out;
}

// The merge scores of a llama2.c tokenizer file (the Llama2cTokenizer keeps only the pieces).
std::vector<float> llama2c_scores(const std::string& path, std::int64_t count) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read the tokenizer '" << path << "'");
  std::int32_t max_length = 0, length = 0;
  in.read(reinterpret_cast<char*>(&max_length), 4);
  std::vector<float> scores(static_cast<std::size_t>(count));
  for (float& score : scores) {
    in.read(reinterpret_cast<char*>(&score), 4);
    in.read(reinterpret_cast<char*>(&length), 4);
    EMBPRIV_CHECK(in && length >= 0, path << " is truncated");
    in.ignore(length);
  }
  return scores;
}

// The split points of a piece at UTF-8 character boundaries (Python's merge[:index]).
std::vector<std::size_t> character_boundaries(const std::string& piece) {
  std::vector<std::size_t> cuts;
  for (std::size_t i = 1; i < piece.size(); ++i) {
    if ((static_cast<unsigned char>(piece[i]) & 0xC0) != 0x80) cuts.push_back(i);
  }
  return cuts;
}

json added_token(std::int64_t id, const std::string& content) {
  return {{"id", id}, {"content", content}, {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", true}};
}

// Whether a file of a model folder belongs to a model (weights, configs, tokenizer files), so
// that --overwrite removes it when the new model does not write it.
bool is_model_file(const std::filesystem::path& name) {
  const std::string n = name.filename().string(), extension = name.extension().string();
  for (const char* e : {".safetensors", ".json", ".bin", ".model", ".pt", ".pth", ".gguf"}) {
    if (extension == e) return true;
  }
  return n == "vocab.txt" || n == "merges.txt";
}

// The entries of out_dir that must go before the new model is written; refuses a non-empty
// folder without `overwrite`, and a path that is not a folder.
std::vector<std::filesystem::path> stale_model_files(const std::filesystem::path& out, bool overwrite,
                                                     const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_status status = fs::status(out, error);
  if (status.type() == fs::file_type::not_found) return {};
  EMBPRIV_CHECK(!error, "cannot read the folder '" << out.string() << "': " << error.message());
  EMBPRIV_CHECK(fs::is_directory(status), "--out '" << out.string() << "' exists and is not a folder");
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(out, error), end; !error && it != end; it.increment(error)) entries.push_back(it->path());
  EMBPRIV_CHECK(!error, "cannot list the folder '" << out.string() << "': " << error.message());
  if (entries.empty()) return {};
  std::sort(entries.begin(), entries.end());
  EMBPRIV_CHECK(overwrite, "--out '" << out.string() << "' is not empty (it holds '" << entries.front().filename().string()
                                     << "'" << (entries.size() > 1 ? " and more" : "")
                                     << "); pass --overwrite to replace the model there, or name a new folder");
  std::vector<fs::path> stale;
  for (const fs::path& entry : entries) {
    const fs::file_status link = fs::symlink_status(entry, error);
    if (error || fs::is_directory(link) || !is_model_file(entry)) continue;
    bool input = false;
    for (const std::string& in : inputs) input = input || fs::equivalent(entry, in, error);
    if (!input) stale.push_back(entry);
  }
  // Shard indexes first (see convert_llama2c_to_hf).
  std::stable_partition(stale.begin(), stale.end(), [](const fs::path& p) {
    const std::string n = p.filename().string();
    return n.size() >= 11 && n.compare(n.size() - 11, 11, ".index.json") == 0;
  });
  return stale;
}

}  // namespace

at::Tensor permute_rotary_rows(const at::Tensor& weight, std::int64_t heads) {
  const std::int64_t rows = weight.size(0), in = weight.size(1);
  EMBPRIV_CHECK(rows % (2 * heads) == 0, "cannot split " << rows << " rows into " << heads << " heads of pairs");
  return weight.reshape({heads, rows / heads / 2, 2, in}).transpose(1, 2).reshape({rows, in}).contiguous();
}

std::string llama2c_hf_config_json(const Llama2cConfig& c) {
  const json config = {
      {"architectures", {"LlamaForCausalLM"}},
      {"attention_bias", false},
      {"attention_dropout", 0.0},
      {"bos_token_id", Llama2cTokenizer::kBos},
      {"eos_token_id", Llama2cTokenizer::kEos},
      {"head_dim", c.head_size()},
      {"hidden_act", "silu"},
      {"hidden_size", c.dim},
      {"initializer_range", 0.02},
      {"intermediate_size", c.hidden_dim},
      {"max_position_embeddings", c.seq_len},
      {"mlp_bias", false},
      {"model_type", "llama"},
      {"num_attention_heads", c.n_heads},
      {"num_hidden_layers", c.n_layers},
      {"num_key_value_heads", c.n_kv_heads},
      {"pretraining_tp", 1},
      {"rms_norm_eps", 1e-5},  // run.c, rmsnorm()
      {"rope_scaling", nullptr},
      {"rope_theta", 10000.0},  // run.c, the RoPE loop
      {"tie_word_embeddings", c.shared_classifier},
      {"torch_dtype", "float32"},
      {"use_cache", true},
      {"vocab_size", c.vocab_size}};
  return config.dump(2) + "\n";
}

std::string llama2c_hf_tokenizer_json(const std::string& tokenizer_path, std::int64_t vocab_size) {
  const Llama2cTokenizer tokenizer = Llama2cTokenizer::load(tokenizer_path, vocab_size);
  const std::vector<float> scores = llama2c_scores(tokenizer_path, vocab_size);
  std::vector<std::string> pieces;
  json vocab = json::object();
  for (std::int64_t id = 0; id < vocab_size; ++id) {
    // llama2.c's export writes <s> and </s> as "\n<s>\n" and "\n</s>\n"; SentencePiece names them plainly.
    const std::string piece = id == Llama2cTokenizer::kBos   ? "<s>"
                              : id == Llama2cTokenizer::kEos ? "</s>"
                                                             : with_space_marks(tokenizer.piece(id));
    pieces.push_back(piece);
    vocab[piece] = id;
  }
  // transformers' SentencePieceExtractor: every split of a piece into two pieces is a merge;
  // merges are ranked by the merged piece's score (highest first, ties in id order), the splits
  // of one piece by the ids of their left, then right part.
  std::vector<std::int64_t> order(static_cast<std::size_t>(vocab_size));
  for (std::int64_t id = 0; id < vocab_size; ++id) order[static_cast<std::size_t>(id)] = id;
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return scores[static_cast<std::size_t>(a)] > scores[static_cast<std::size_t>(b)];
  });
  json merges = json::array();
  for (const std::int64_t id : order) {
    const std::string& piece = pieces[static_cast<std::size_t>(id)];
    std::vector<std::pair<std::int64_t, std::int64_t>> local;
    for (const std::size_t cut : character_boundaries(piece)) {
      const std::string left = piece.substr(0, cut), right = piece.substr(cut);
      if (vocab.contains(left) && vocab.contains(right)) local.emplace_back(vocab[left], vocab[right]);
    }
    std::sort(local.begin(), local.end());
    for (const auto& [l, r] : local) merges.push_back({pieces[static_cast<std::size_t>(l)], pieces[static_cast<std::size_t>(r)]});
  }
  const json template_bos = {{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}};
  json t = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", {added_token(0, "<unk>"), added_token(1, "<s>"), added_token(2, "</s>")}},
      {"normalizer", {{"type", "Sequence"}, {"normalizers", {{{"type", "Prepend"}, {"prepend", kSpaceMark}},
                                                              {{"type", "Replace"}, {"pattern", {{"String", " "}}},
                                                               {"content", kSpaceMark}}}}}},
      {"pre_tokenizer", nullptr},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", {template_bos, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
        {"pair", {template_bos, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                  {{"SpecialToken", {{"id", "<s>"}, {"type_id", 1}}}}, {{"Sequence", {{"id", "B"}, {"type_id", 1}}}}}},
        {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {1}}, {"tokens", {"<s>"}}}}}}}},
      {"decoder", {{"type", "Sequence"}, {"decoders", {{{"type", "Replace"}, {"pattern", {{"String", kSpaceMark}}}, {"content", " "}},
                                                       {{"type", "ByteFallback"}},
                                                       {{"type", "Fuse"}},
                                                       {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
      {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", "<unk>"}, {"continuing_subword_prefix", nullptr},
                 {"end_of_word_suffix", nullptr}, {"fuse_unk", true}, {"byte_fallback", true},
                 {"ignore_merges", false}, {"vocab", vocab}, {"merges", merges}}}};
  return t.dump(2) + "\n";
}

void convert_llama2c_to_hf(const std::string& model_path, const std::string& tokenizer_path, const std::string& out_dir,
                           bool overwrite) {
  // The folder is checked before the (slow) reads, and nothing is removed until they succeed.
  const std::vector<std::filesystem::path> stale =
      stale_model_files(out_dir, overwrite, {model_path, tokenizer_path});
  const Llama2cWeights w = load_llama2c_checkpoint(model_path);
  const Llama2cConfig& c = w.config;
  // Build everything before writing anything, so a bad tokenizer leaves no half folder.
  const std::string tokenizer_json = llama2c_hf_tokenizer_json(tokenizer_path, c.vocab_size);
  std::vector<std::pair<std::string, at::Tensor>> tensors = {{"model.embed_tokens.weight", w.token_embedding},
                                                             {"model.norm.weight", w.rms_final}};
  if (!c.shared_classifier) tensors.emplace_back("lm_head.weight", w.classifier);
  for (std::int64_t l = 0; l < c.n_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    tensors.emplace_back(p + "input_layernorm.weight", w.rms_attention[l]);
    tensors.emplace_back(p + "post_attention_layernorm.weight", w.rms_ffn[l]);
    tensors.emplace_back(p + "self_attn.q_proj.weight", permute_rotary_rows(w.wq[l], c.n_heads));
    tensors.emplace_back(p + "self_attn.k_proj.weight", permute_rotary_rows(w.wk[l], c.n_kv_heads));
    tensors.emplace_back(p + "self_attn.v_proj.weight", w.wv[l]);
    tensors.emplace_back(p + "self_attn.o_proj.weight", w.wo[l]);
    tensors.emplace_back(p + "mlp.gate_proj.weight", w.w1[l]);
    tensors.emplace_back(p + "mlp.up_proj.weight", w.w3[l]);
    tensors.emplace_back(p + "mlp.down_proj.weight", w.w2[l]);
  }
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  EMBPRIV_CHECK(!error && std::filesystem::is_directory(out_dir),
                "cannot create the folder '" << out_dir << "': " << error.message());
  const std::filesystem::path out(out_dir);
  // The old model's files go first, the shard index before anything: a crash in between leaves a
  // folder the loader refuses, never one where it reads the old shards.
  for (const std::filesystem::path& file : stale) {
    std::filesystem::remove(file, error);
    EMBPRIV_CHECK(!error, "cannot remove the old model file '" << file.string() << "': " << error.message());
  }
  write_safetensors((out / "model.safetensors").string(), tensors);
  write_file_atomically((out / "tokenizer.json").string(), tokenizer_json);
  write_file_atomically((out / "config.json").string(), llama2c_hf_config_json(c));
}

}  // namespace embpriv
