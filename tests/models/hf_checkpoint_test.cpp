// Bad Hugging Face folders: each is refused with one embpriv::Error naming the problem (the
// folder, the key, the tensor or the shard), never a crash.
#include "core/source_dir.h"
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/error.h"
#include "data/embedding_formats.h"
#include "models/hf_checkpoint.h"
#include "models/hf_decoder_model.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A tiny valid model written by the numpy reference (tests/models/hf_decoder_reference.py).
void make_model(const std::string& variant, const std::string& folder) {
  const std::string command = "/usr/bin/python3 " + std::string(embpriv::source_dir()) +
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
