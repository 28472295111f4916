// `embpriv convert llama2c-to-hf` and the converted folder used as data.model: the inversion
// config on the Hugging Face copy gives the llama2.c table; bad model folders give one
// `embpriv: error:` line and exit code 2.
#include "core/source_dir.h"
#include "tests/catch.h"

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiments/results/results_table.h"
#include "tests/test_binary.h"
#include "tests/test_data.h"
#include "tests/test_tables.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
namespace fs = std::filesystem;

namespace {

const std::string kHfConfig = std::string(embpriv::source_dir()) + "/configs/inversion_stories260k_hf.yaml";

Outcome convert(const std::string& out) {
  return run_binary("convert llama2c-to-hf --model " + stories260k_checkpoint() + " --tokenizer " +
                    stories260k_tokenizer() + " --out " + out);
}

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The errors of `embpriv run` on the HF config with data.model=FOLDER.
Outcome run_on(const std::string& folder, const TempDir& dir) {
  return run_binary("-q run " + kHfConfig + " data.model=" + folder + " data.tokenizer=" + stories260k_tokenizer() +
                        " data.max_sentences=2 --no-plot --threads 1 --overwrite --out " + (dir / "bad.h5"),
                    Capture::errors);
}

// Runs `embpriv run CONFIG OVERRIDES` and reads its table.
ResultsTable run_table(const std::string& config, const std::string& overrides, const std::string& out) {
  const Outcome o = run_binary("-q run " + config + " " + overrides + " --no-plot --threads 1 --overwrite --out " + out);
  INFO(o.output);
  REQUIRE(o.code == 0);
  return read_results_h5(out);
}

// "" when the tables are the same, the perplexity columns to 1e-5 relative (they come from
// float32 logits that differ by < 2e-5, tests/models/llama2c_to_hf_test.cpp) and every other
// column bit for bit.
std::string difference_but_perplexity(ResultsTable hf, const ResultsTable& llama2c) {
  for (Column& column : hf.columns) {
    if (column.name.rfind("lm_perplexity", 0) != 0) continue;
    const std::vector<double>& a = hf.values<double>(column.name);
    const std::vector<double>& b = llama2c.values<double>(column.name);
    if (a.size() != b.size()) return column.name + " has another size";
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!(std::abs(a[i] - b[i]) <= 1e-5 * std::abs(b[i])) || !(a[i] > 1)) {
        return column.name + " row " + std::to_string(i) + ": " + std::to_string(a[i]) + " vs " + std::to_string(b[i]);
      }
    }
    column.values = llama2c.column(column.name).values;
  }
  return table_difference(hf, llama2c);
}

void expect_one_error(const Outcome& o, const std::string& part) {
  INFO(o.output);
  CHECK(o.code == 2);
  CHECK_THAT(o.output, StartsWith("embpriv: error: "));
  CHECK_THAT(o.output, Contains(part));
  CHECK(std::count(o.output.begin(), o.output.end(), '\n') == 1);
}

}  // namespace

TEST_CASE("convert llama2c-to-hf writes a folder the inversion config reads, with the llama2.c table", "[apps][hf]") {
  TempDir dir("embpriv_convert_test");
  const std::string folder = dir / "stories260K-hf";
  const Outcome converted = convert(folder);
  INFO(converted.output);
  REQUIRE(converted.code == 0);
  for (const char* file : {"config.json", "model.safetensors", "tokenizer.json"}) CHECK(fs::exists(folder + "/" + file));

  // data.tokenizer: auto reads the folder's tokenizer.json, and tok512.bin for the .bin.
  const ResultsTable hf = run_table(kHfConfig, "data.model=" + folder, dir / "hf.h5");
  const ResultsTable llama2c = run_table(kHfConfig, "data.model=tinyllama/stories260K.bin", dir / "llama2c.h5");
  REQUIRE(hf.rows() == 12);
  CHECK(difference_but_perplexity(hf, llama2c) == "");
  const std::vector<double>& top1 = llama2c.values<double>("top1_recovery");
  CHECK(*std::min_element(top1.begin(), top1.end()) < 0.5);  // the table holds real numbers: some
  CHECK(*std::max_element(top1.begin(), top1.end()) > 0.9);  // points hide tokens, others not
}

TEST_CASE("obfuslm's client/server flow on the converted folder gives the llama2.c table", "[apps][hf]") {
  TempDir dir("embpriv_convert_obfuslm_test");
  const std::string folder = dir / "stories260K-hf";
  REQUIRE(convert(folder).code == 0);
  const std::string config = std::string(embpriv::source_dir()) + "/configs/obfuslm_stories260k.yaml";
  const std::string small = "data.max_sentences=40 sweep.obfuscation.k=[1,5] sweep.obfuscation.epsilon=[3] ";
  const ResultsTable hf = run_table(config, small + "data.model=" + folder, dir / "hf.h5");
  const ResultsTable llama2c = run_table(config, small, dir / "llama2c.h5");
  REQUIRE(hf.rows() == 2);
  CHECK(difference_but_perplexity(hf, llama2c) == "");
  const std::vector<std::string>& text = hf.values<std::string>("generated_text");
  CHECK(text[0].rfind("Once upon a time, there was a little girl named Lily.", 0) == 0);  // k = 1: the clean model
}

TEST_CASE("convert and bad model folders: one error line, exit code 2", "[apps][hf]") {
  TempDir dir("embpriv_convert_bad_test");
  expect_one_error(run_binary("convert llama2c-to-hf --model " + stories260k_checkpoint(), Capture::errors), "--tokenizer");
  expect_one_error(run_binary("convert llama2c-to-hf --model " + (dir / "none.bin") + " --tokenizer " +
                                  stories260k_tokenizer() + " --out " + (dir / "x"),
                              Capture::errors),
                   "data file '" + (dir / "none.bin") + "' not found");

  const std::string good = dir / "good";
  REQUIRE(convert(good).code == 0);
  const auto copy_of = [&](const std::string& name) {
    const std::string folder = dir / name;
    fs::copy(good, folder);
    return folder;
  };
  const auto edit_config = [&](const std::string& folder, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json config = nlohmann::json::parse(text_of(folder + "/config.json"));
    edit(config);
    write_file(folder + "/config.json", config.dump(2));
  };

  const std::string no_config = copy_of("no_config");
  fs::remove(no_config + "/config.json");
  expect_one_error(run_on(no_config, dir), "has no config.json");

  const std::string no_key = copy_of("no_key");
  edit_config(no_key, [](nlohmann::json& c) { c.erase("intermediate_size"); });
  expect_one_error(run_on(no_key, dir), "missing key 'intermediate_size'");

  const std::string other_type = copy_of("other_type");
  edit_config(other_type, [](nlohmann::json& c) { c["model_type"] = "gemma"; });
  expect_one_error(run_on(other_type, dir), "unsupported model_type 'gemma'");

  const std::string yarn = copy_of("yarn");
  edit_config(yarn, [](nlohmann::json& c) { c["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}}; });
  expect_one_error(run_on(yarn, dir), "unsupported rope_scaling.rope_type 'yarn'");

  // A header that lies about a tensor's offsets.
  const std::string lying = copy_of("lying");
  std::string bytes = text_of(lying + "/model.safetensors");
  const std::string from = "\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[64]";
  const std::size_t at = bytes.find(from);
  REQUIRE(at != std::string::npos);
  bytes.replace(at, from.size(), "\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[65]");
  write_file(lying + "/model.safetensors", bytes);
  expect_one_error(run_on(lying, dir), "tensor 'model.norm.weight' has data_offsets that do not match its shape");

  // A shard index naming a missing file.
  const std::string sharded = copy_of("sharded");
  fs::rename(sharded + "/model.safetensors", sharded + "/model-00001-of-00002.safetensors");
  nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
  index["weight_map"]["model.embed_tokens.weight"] = "model-00001-of-00002.safetensors";
  index["weight_map"]["model.norm.weight"] = "model-00002-of-00002.safetensors";
  write_file(sharded + "/model.safetensors.index.json", index.dump());
  expect_one_error(run_on(sharded, dir), "names the shard 'model-00002-of-00002.safetensors', which is missing");
}

TEST_CASE("convert --out into a folder holding a model: refused without --overwrite, replaced with it", "[apps][hf]") {
  TempDir dir("embpriv_convert_overwrite_test");
  const std::string folder = dir / "m";
  REQUIRE(convert(folder).code == 0);
  // The folder now also holds a sharded model (an index and its shard) and a README: the index
  // made every later load read the old shards instead of the new model.safetensors.
  fs::copy_file(folder + "/model.safetensors", folder + "/model-00001-of-00001.safetensors");
  nlohmann::json index = {{"metadata", {{"total_size", 0}}}, {"weight_map", nlohmann::json::object()}};
  for (const char* name : {"model.embed_tokens.weight", "model.norm.weight"}) {
    index["weight_map"][name] = "model-00001-of-00001.safetensors";
  }
  write_file(folder + "/model.safetensors.index.json", index.dump());
  write_file(folder + "/README.md", "my notes\n");
  expect_one_error(run_binary("convert llama2c-to-hf --model " + stories260k_checkpoint() + " --tokenizer " +
                                  stories260k_tokenizer() + " --out " + folder, Capture::errors),
                   "--out '" + folder + "' is not empty (it holds 'README.md' and more); pass --overwrite");
  CHECK(fs::exists(folder + "/model.safetensors.index.json"));
  const Outcome replaced = run_binary("convert llama2c-to-hf --model " + stories260k_checkpoint() + " --tokenizer " +
                                      stories260k_tokenizer() + " --out " + folder + " --overwrite");
  INFO(replaced.output);
  REQUIRE(replaced.code == 0);
  CHECK_FALSE(fs::exists(folder + "/model.safetensors.index.json"));
  CHECK_FALSE(fs::exists(folder + "/model-00001-of-00001.safetensors"));
  for (const char* file : {"config.json", "model.safetensors", "tokenizer.json", "README.md"}) CHECK(fs::exists(folder + "/" + file));
  // A file where the folder should be.
  write_file(dir / "file", "x");
  expect_one_error(run_binary("convert llama2c-to-hf --model " + stories260k_checkpoint() + " --tokenizer " +
                                  stories260k_tokenizer() + " --out " + (dir / "file") + " --overwrite", Capture::errors),
                   "exists and is not a folder");
  // An unknown conversion is named.
  expect_one_error(run_binary("convert hf-to-llama2c", Capture::errors), "unknown conversion 'convert hf-to-llama2c'");
}

TEST_CASE("bad HF checkpoints and data stop the run before any row, naming the file and key", "[apps][hf]") {
  TempDir dir("embpriv_convert_stop_test");
  const std::string good = dir / "good";
  REQUIRE(convert(good).code == 0);
  const auto copy_of = [&](const std::string& name) {
    const std::string folder = dir / name;
    fs::copy(good, folder);
    return folder;
  };
  const auto edit_json = [&](const std::string& path, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(text_of(path));
    edit(j);
    write_file(path, j.dump(2));
  };
  // `embpriv run` on FOLDER with two rows; `extra` overrides more keys.
  const auto run_rows = [&](const std::string& folder, const std::string& extra, bool dry) {
    return run_binary("-q run " + kHfConfig + " data.model=" + folder + " data.max_sentences=2 " + extra +
                          " sweep.mechanism.epsilon=[10] sweep.mask=[none] --no-plot --threads 1 --overwrite --out " +
                          (dir / "out.h5") + (dry ? " --dry-run" : ""),
                      Capture::errors);
  };

  // Item 14: a NaN weight (it failed every row with exit 1), rope_theta 1e-300, an empty vocabulary.
  const std::string nan = copy_of("nan");
  std::string bytes = text_of(nan + "/model.safetensors");
  std::uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, header_length));
  const float not_a_number = std::nanf("");
  bytes.replace(8 + header_length + header["model.layers.2.mlp.up_proj.weight"]["data_offsets"][0].get<std::uint64_t>(), 4,
                std::string(reinterpret_cast<const char*>(&not_a_number), 4));
  write_file(nan + "/model.safetensors", bytes);
  expect_one_error(run_rows(nan, "", false), "tensor 'model.layers.2.mlp.up_proj.weight' holds a non-finite weight");
  const std::string theta = copy_of("theta");
  edit_json(theta + "/config.json", [](nlohmann::json& c) { c["rope_theta"] = 1e-300; });
  expect_one_error(run_rows(theta, "", false), "'rope_theta' must be a finite number > 1, got 1e-300");
  const std::string empty_vocab = copy_of("empty_vocab");
  edit_json(empty_vocab + "/tokenizer.json", [](nlohmann::json& t) {
    t["model"]["vocab"] = nlohmann::json::object();
    t["model"]["merges"] = nlohmann::json::array();
  });
  expect_one_error(run_rows(empty_vocab, "", false), "model.vocab is empty");
  write_file(dir / "empty.json", "[]");
  expect_one_error(run_rows(good, "data.sentences=" + (dir / "empty.json"), false), "holds no labelled sentence");

  // Item 15: files no index names, dangling or not files at all, are not read (the memory
  // estimate summed every *.safetensors); the file the load reads is refused by name.
  const std::string stray = copy_of("stray");
  fs::create_symlink(dir / "nowhere", stray + "/model-00002-of-00002.safetensors");
  fs::create_symlink("loop.safetensors", stray + "/loop.safetensors");
  fs::create_directory(stray + "/partial.safetensors");
  REQUIRE(mkfifo((stray + "/fifo.safetensors").c_str(), 0600) == 0);
  const Outcome dry = run_rows(stray, "", true);
  INFO(dry.output);
  CHECK(dry.code == 0);
  const std::string dangling = copy_of("dangling");
  fs::remove(dangling + "/model.safetensors");
  fs::create_symlink(dir / "nowhere", dangling + "/model.safetensors");
  expect_one_error(run_rows(dangling, "", true), "model.safetensors': No such file or directory");
  const std::string fifo = copy_of("fifo");
  fs::remove(fifo + "/model.safetensors");
  REQUIRE(mkfifo((fifo + "/model.safetensors").c_str(), 0600) == 0);
  expect_one_error(run_rows(fifo, "", true), "model.safetensors' is not a regular file");

  // Item 17: messages that blamed language_model.texts, named no key or failed in the library.
  const std::string huge = copy_of("huge");
  edit_json(huge + "/config.json", [](nlohmann::json& c) { c["hidden_size"] = std::int64_t{1} << 62; });
  expect_one_error(run_rows(huge, "", true), "data.model '" + huge + "' (" + huge + "/config.json: vocab_size 512, hidden_size 4611686018427387904)");
  expect_one_error(run_rows(good + "/model.safetensors", "", true), "is a safetensors file; give the Hugging Face folder");
  expect_one_error(run_rows(good, "data.sentences=" + good, false), "is a folder, not a JSON file");
  const std::string short_context = copy_of("short_context");
  edit_json(short_context + "/config.json", [](nlohmann::json& c) { c["max_position_embeddings"] = 4; });
  // Item 19: obfuslm's prompt with invalid UTF-8 failed every row; it is refused before them.
  const std::string obfuslm = std::string(embpriv::source_dir()) + "/configs/obfuslm_stories260k.yaml";
  expect_one_error(run_binary("-q run " + obfuslm + " data.model=" + good + " \"language_model.prompt=$(printf 'a\\377')\"" +
                                  " --dry-run --no-plot --out " + (dir / "o.h5"), Capture::errors),
                   "language_model.prompt is not valid UTF-8");
  // Positions too few for language_model.tokens failed every row (exit 1): refused before them.
  expect_one_error(run_rows(short_context, "", true), "language_model.tokens 16 needs 17 positions, but data.model '" +
                                                          short_context + "' has 4 (max_position_embeddings");
  // The same for obfuslm, whose clean model writes language_model.texts of that many tokens.
  expect_one_error(run_binary("-q run " + obfuslm + " data.model=" + short_context + " --dry-run --no-plot --out " +
                                  (dir / "o.h5"), Capture::errors),
                   "language_model.tokens 48 needs 49 positions, but data.model '" + short_context + "' has 4");
}
