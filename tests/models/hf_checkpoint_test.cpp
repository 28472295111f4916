// Bad Hugging Face folders: each is refused with one embpriv::Error naming the problem (the
// folder, the key, the tensor or the shard), never a crash.
#include "core/source_dir.h"
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "data/tables/embedding_formats.h"
#include "models/hf_checkpoint.h"
#include "models/hf_decoder_model.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A tiny valid model written by the numpy reference (tests/models/hf_decoder_reference.py).
void make_model(const std::string& variant, const std::string& folder) {
  const std::string command = EMBPRIV_TEST_PYTHON " " + std::string(embpriv::source_dir()) +
                              "/tests/models/hf_decoder_reference.py make " + variant + " " + folder + " 5";
  REQUIRE(std::system(command.c_str()) == 0);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

void write_json(const std::string& path, const nlohmann::json& json) { write_file(path, json.dump(2)); }

}  // namespace

TEST_CASE("config.json refusals name the key", "[models][hf]") {
  const auto refusal = [](const nlohmann::json& config) {
    try {
      parse_hf_decoder_config(config.dump(), "config.json");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::bad_input);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const nlohmann::json good = {{"model_type", "llama"}, {"vocab_size", 40}, {"hidden_size", 32},
                               {"intermediate_size", 48}, {"num_hidden_layers", 2}, {"num_attention_heads", 4}};
  CHECK(refusal(good) == "accepted");
  const HfDecoderConfig c = parse_hf_decoder_config(good.dump(), "config.json");
  CHECK(c.num_key_value_heads == 4);
  CHECK(c.head_dim == 8);
  CHECK(c.rms_norm_eps == 1e-6);
  CHECK_FALSE(c.tie_word_embeddings);
  CHECK(c.bos_token_id == 1);  // absent: llama2.c's and Llama 2's <s>
  nlohmann::json other = good;
  other["bos_token_id"] = 7;
  CHECK(parse_hf_decoder_config(other.dump(), "config.json").bos_token_id == 7);
  other["bos_token_id"] = nullptr;
  CHECK(parse_hf_decoder_config(other.dump(), "config.json").bos_token_id == 1);
  other["bos_token_id"] = 40;
  CHECK_THAT(refusal(other), Contains("'bos_token_id' must be a token id in [0, 40), got 40"));
  other = good;
  other["model_type"] = "gpt2";
  CHECK_THAT(refusal(other), Contains("unsupported model_type 'gpt2'"));
  other = good;
  other.erase("hidden_size");
  CHECK_THAT(refusal(other), Contains("missing key 'hidden_size'"));
  other = good;
  other["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}};
  CHECK_THAT(refusal(other), Contains("unsupported rope_scaling.rope_type 'yarn'"));
  other["rope_scaling"] = {{"type", "linear"}, {"factor", 4.0}};
  CHECK_THAT(refusal(other), Contains("unsupported rope_scaling.type 'linear'"));
  other["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0}};
  CHECK_THAT(refusal(other), Contains("missing key 'original_max_position_embeddings'"));
  other = good;
  other["hidden_act"] = "gelu";
  CHECK_THAT(refusal(other), Contains("unsupported hidden_act 'gelu'"));
  other["hidden_act"] = 31072;  // found by fuzz/hf_config_fuzz.cpp: a number where a name belongs
  CHECK_THAT(refusal(other), Contains("'hidden_act' must be a name such as \"silu\", got 31072"));
  other = good;
  other["num_key_value_heads"] = 3;
  CHECK_THAT(refusal(other), Contains("not a multiple of 'num_key_value_heads'"));
  other = good;
  other["model_type"] = "qwen2";
  other["use_sliding_window"] = true;
  CHECK_THAT(refusal(other), Contains("use_sliding_window"));
  CHECK_THAT([&] {
    try {
      parse_hf_decoder_config("{not json", "x/config.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  }(), Contains("x/config.json: malformed JSON"));
}

TEST_CASE("bad model folders and safetensors files are refused", "[models][hf]") {
  TempDir dir("embpriv_hf_bad");
  fs::create_directories(dir / "empty");
  CHECK_THROWS_WITH(load_hf_checkpoint(dir / "empty"), Contains("has no config.json"));
  CHECK_THROWS_WITH(load_hf_checkpoint(dir / "nowhere"), Contains("is not a model folder"));

  const std::string good = dir / "good";
  make_model("qwen2_bias", good);
  CHECK(load_hf_checkpoint(good).layers.size() == 2);

  // A config.json without a key.
  const std::string no_key = dir / "no_key";
  fs::copy(good, no_key);
  nlohmann::json config = read_json(no_key + "/config.json");
  config.erase("num_hidden_layers");
  write_json(no_key + "/config.json", config);
  CHECK_THROWS_WITH(load_hf_checkpoint(no_key), Contains("missing key 'num_hidden_layers'"));

  // A config whose sizes disagree with the tensors.
  config = read_json(good + "/config.json");
  config["intermediate_size"] = 50;
  const std::string wrong_size = dir / "wrong_size";
  fs::copy(good, wrong_size);
  write_json(wrong_size + "/config.json", config);
  CHECK_THROWS_WITH(load_hf_checkpoint(wrong_size), Contains("tensor 'model.layers.0.mlp.gate_proj.weight' has shape [48, 32], config.json implies [50, 32]"));

  // Headers that lie about offsets or shapes, a truncated file.
  const std::string bytes = [&] {
    std::ifstream in(good + "/model.safetensors", std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }();
  std::uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, header_length));
  const auto with_header = [&](const nlohmann::json& h) {
    std::string text = h.dump();
    const std::uint64_t n = text.size();
    return std::string(reinterpret_cast<const char*>(&n), 8) + text + bytes.substr(8 + header_length);
  };
  nlohmann::json lying = header;
  lying["model.norm.weight"]["data_offsets"][1] = lying["model.norm.weight"]["data_offsets"][1].get<std::uint64_t>() + 4;
  write_file(dir / "offsets.safetensors", with_header(lying));
  CHECK_THROWS_WITH(SafetensorsFile(dir / "offsets.safetensors"),
                    Contains("tensor 'model.norm.weight' has data_offsets that do not match its shape"));
  lying = header;
  lying["model.norm.weight"]["shape"] = {64};
  write_file(dir / "shape.safetensors", with_header(lying));
  CHECK_THROWS_WITH(SafetensorsFile(dir / "shape.safetensors"), Contains("do not match its shape"));
  lying = header;
  lying["model.norm.weight"]["data_offsets"] = {bytes.size(), bytes.size() + 128};
  write_file(dir / "beyond.safetensors", with_header(lying));
  CHECK_THROWS_WITH(SafetensorsFile(dir / "beyond.safetensors"), Contains("is truncated: tensor 'model.norm.weight' ends"));
  lying = header;
  lying["model.norm.weight"]["shape"] = {std::int64_t{1} << 40, std::int64_t{1} << 40};
  write_file(dir / "huge.safetensors", with_header(lying));
  CHECK_THROWS_WITH(SafetensorsFile(dir / "huge.safetensors"), Contains("impossible shape"));
  lying = header;
  lying["model.norm.weight"]["dtype"] = "I8";
  write_file(dir / "dtype.safetensors", with_header(lying));
  CHECK_THROWS_WITH(SafetensorsFile(dir / "dtype.safetensors"), Contains("has dtype 'I8'"));
  write_file(dir / "cut.safetensors", bytes.substr(0, bytes.size() / 2));
  CHECK_THROWS_WITH(SafetensorsFile(dir / "cut.safetensors"), Contains("is truncated"));
  write_file(dir / "tiny.safetensors", "abc");
  CHECK_THROWS_WITH(SafetensorsFile(dir / "tiny.safetensors"), Contains("too short"));

  // A shard index naming a missing file, a folder without weights.
  const std::string sharded = dir / "sharded";
  make_model("llama3_bf16_sharded", sharded);
  CHECK(load_hf_checkpoint(sharded).layers.size() == 2);
  fs::remove(sharded + "/model-00002-of-00002.safetensors");
  CHECK_THROWS_WITH(load_hf_checkpoint(sharded), Contains("names the shard 'model-00002-of-00002.safetensors', which is missing"));
  const std::string no_weights = dir / "no_weights";
  fs::create_directories(no_weights);
  fs::copy(good + "/config.json", no_weights + "/config.json");
  CHECK_THROWS_WITH(load_hf_checkpoint(no_weights), Contains("has neither model.safetensors nor model.safetensors.index.json"));
}

TEST_CASE("the HF model refuses bad inputs", "[models][hf]") {
  TempDir dir("embpriv_hf_inputs");
  make_model("mistral_f32", dir / "m");
  const HfDecoderModel model(load_hf_checkpoint(dir / "m"));
  CHECK(model.max_sequence_length() == 64);
  CHECK_THROWS_WITH(model.embed(at::tensor({0, 40}, at::kLong)), Contains("token ids must be in [0, 40), got 40"));
  CHECK_THROWS_WITH(model.forward_embeddings(at::zeros({65, 32})), Contains("sequence length must be in [1, 64]"));
  CHECK_THROWS_WITH(model.forward_embeddings(at::zeros({3, 31})), Contains("input embeddings must be"));
  CHECK_THROWS_WITH(model.forward_embeddings(at::full({2, 32}, NAN)), Contains("NaN or Inf"));
}

namespace {

// The bytes of a file, and the file with `length` bytes at `offset` replaced.
std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The header of a safetensors file and the offset of its data section.
nlohmann::json safetensors_header(const std::string& bytes, std::uint64_t& data_start) {
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  data_start = 8 + n;
  return nlohmann::json::parse(bytes.substr(8, n));
}

// The folder's model.safetensors with the first element of `tensor` set to `value` (raw bytes).
void poke_first_element(const std::string& folder, const std::string& tensor, const std::string& value) {
  std::string bytes = file_bytes(folder + "/model.safetensors");
  std::uint64_t data_start = 0;
  const nlohmann::json header = safetensors_header(bytes, data_start);
  const std::uint64_t begin = header[tensor]["data_offsets"][0].get<std::uint64_t>();
  bytes.replace(data_start + begin, value.size(), value);
  write_file(folder + "/model.safetensors", bytes);
}

std::string refusal_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::bad_input);
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("a checkpoint that disagrees with config.json or holds NaN/Inf is refused when loaded", "[models][hf]") {
  TempDir dir("embpriv_hf_agree");
  const std::string good = dir / "good";
  make_model("qwen2_bias", good);
  const auto copy_of = [&](const std::string& from, const std::string& name) {
    fs::copy(from, dir / name);
    return std::string(dir / name);
  };

  // num_hidden_layers 1 on a 2-layer checkpoint ran as a 1-layer model without a word.
  const std::string fewer = copy_of(good, "fewer_layers");
  nlohmann::json config = read_json(fewer + "/config.json");
  config["num_hidden_layers"] = 1;
  write_json(fewer + "/config.json", config);
  const std::string unused = refusal_of([&] { load_hf_checkpoint(fewer); });
  CHECK_THAT(unused, Contains("model.safetensors holds 12 tensor(s) config.json does not use ('model.layers.1."));
  CHECK_THAT(unused, Contains("num_hidden_layers"));

  // A non-finite weight in each file dtype: float32, float16 and bfloat16 NaN and Inf.
  const float f32_nan = std::nanf(""), f32_inf = INFINITY;
  const std::string nan32(reinterpret_cast<const char*>(&f32_nan), 4), inf32(reinterpret_cast<const char*>(&f32_inf), 4);
  const std::string nan_f32 = copy_of(good, "nan_f32");
  poke_first_element(nan_f32, "model.norm.weight", nan32);
  CHECK_THAT(refusal_of([&] { load_hf_checkpoint(nan_f32); }),
             Contains("model.safetensors: tensor 'model.norm.weight' holds a non-finite weight (NaN or Inf) at element 0"));
  const std::string inf_f32 = copy_of(good, "inf_f32");
  poke_first_element(inf_f32, "model.layers.1.mlp.down_proj.weight", inf32);
  CHECK_THAT(refusal_of([&] { load_hf_checkpoint(inf_f32); }), Contains("'model.layers.1.mlp.down_proj.weight' holds a non-finite"));
  make_model("llama_gqa_f16", dir / "f16");
  const std::string inf_f16 = copy_of(dir / "f16", "inf_f16");
  poke_first_element(inf_f16, "model.embed_tokens.weight", std::string("\x00\x7c", 2));  // float16 +Inf
  CHECK_THAT(refusal_of([&] { load_hf_checkpoint(inf_f16); }), Contains("'model.embed_tokens.weight' holds a non-finite"));
  make_model("qwen3_qk_norm_bf16", dir / "bf16");
  const std::string nan_bf16 = copy_of(dir / "bf16", "nan_bf16");
  poke_first_element(nan_bf16, "model.layers.0.self_attn.q_norm.weight", std::string("\xc0\x7f", 2));  // bfloat16 NaN
  CHECK_THAT(refusal_of([&] { load_hf_checkpoint(nan_bf16); }), Contains("'model.layers.0.self_attn.q_norm.weight' holds a non-finite"));

  // rope_theta 1e-300 overflows the rotary frequencies.
  config = read_json(good + "/config.json");
  config["rope_theta"] = 1e-300;
  CHECK_THAT(refusal_of([&] { parse_hf_decoder_config(config.dump(), "c.json"); }),
             Contains("c.json: 'rope_theta' must be a finite number > 1, got 1e-300"));
  config["rope_theta"] = 1.0;
  CHECK_THAT(refusal_of([&] { parse_hf_decoder_config(config.dump(), "c.json"); }), Contains("'rope_theta' must be"));

  // Overlapping and fractional data_offsets.
  const std::string bytes = file_bytes(good + "/model.safetensors");
  std::uint64_t data_start = 0;
  const nlohmann::json header = safetensors_header(bytes, data_start);
  const auto with_header = [&](const nlohmann::json& h) {
    const std::string text = h.dump();
    const std::uint64_t n = text.size();
    return std::string(reinterpret_cast<const char*>(&n), 8) + text + bytes.substr(data_start);
  };
  nlohmann::json lying = header;
  lying["model.layers.0.input_layernorm.weight"]["data_offsets"] = header["model.norm.weight"]["data_offsets"];
  write_file(dir / "overlap.safetensors", with_header(lying));
  CHECK_THAT(refusal_of([&] { SafetensorsFile(dir / "overlap.safetensors"); }),
             Contains("tensors 'model.layers.0.input_layernorm.weight' and 'model.norm.weight' overlap") ||
                 Contains("tensors 'model.norm.weight' and 'model.layers.0.input_layernorm.weight' overlap"));
  lying = header;
  const std::uint64_t end = header["model.norm.weight"]["data_offsets"][1].get<std::uint64_t>();
  lying["model.norm.weight"]["data_offsets"] = {static_cast<double>(end) - 128 + 0.5, static_cast<double>(end) + 0.5};
  write_file(dir / "fraction.safetensors", with_header(lying));
  CHECK_THAT(refusal_of([&] { SafetensorsFile(dir / "fraction.safetensors"); }),
             Contains("tensor 'model.norm.weight' has a shape or data_offsets that are not lists of whole numbers"));
}

TEST_CASE("stray, dangling, looping, folder and FIFO safetensors files in a model folder", "[models][hf]") {
  TempDir dir("embpriv_hf_stray");
  const std::string good = dir / "good";
  make_model("qwen2_bias", good);
  const std::string index_folder = dir / "index_folder";
  fs::copy(good, index_folder);
  // Files no index names (an interrupted download) are not read: the load and the weight files
  // the memory estimate sums are those of model.safetensors alone.
  fs::create_symlink(dir / "nowhere", good + "/model-00003-of-00003.safetensors");
  fs::create_directory(good + "/partial.safetensors");
  REQUIRE(mkfifo((good + "/fifo.safetensors").c_str(), 0600) == 0);
  fs::create_symlink("loop.safetensors", good + "/loop.safetensors");
  CHECK(load_hf_checkpoint(good).layers.size() == 2);
  CHECK(hf_weight_files(good) == std::vector<std::string>{good + "/model.safetensors"});

  // The file the load reads is one of those: refused naming it, never blocking on the FIFO.
  const auto with_weights = [&](const std::string& name, const std::function<void(const std::string&)>& make) {
    const std::string folder = dir / name;
    fs::create_directories(folder);
    fs::copy(good + "/config.json", folder + "/config.json");
    make(folder + "/model.safetensors");
    return refusal_of([&] { load_hf_checkpoint(folder); });
  };
  CHECK_THAT(with_weights("dangling", [&](const std::string& p) { fs::create_symlink(dir / "nowhere", p); }),
             Contains("model.safetensors': No such file or directory"));
  CHECK_THAT(with_weights("looping", [&](const std::string& p) { fs::create_symlink(p, p); }),
             Contains("model.safetensors': Too many levels of symbolic links"));
  CHECK_THAT(with_weights("folder", [&](const std::string& p) { fs::create_directory(p); }),
             Contains("model.safetensors' is not a regular file"));
  CHECK_THAT(with_weights("fifo", [&](const std::string& p) { REQUIRE(mkfifo(p.c_str(), 0600) == 0); }),
             Contains("model.safetensors' is not a regular file"));
  // A shard index that is a folder (std::ifstream threw basic_filebuf's underflow error).
  fs::create_directory(index_folder + "/model.safetensors.index.json");
  CHECK_THAT(refusal_of([&] { load_hf_checkpoint(index_folder); }), Contains("model.safetensors.index.json' is not a regular file"));
  fs::remove(index_folder + "/config.json");
  fs::create_directory(index_folder + "/config.json");
  CHECK_THAT(refusal_of([&] { load_hf_checkpoint(index_folder); }), Contains("config.json' is not a regular file"));
}
