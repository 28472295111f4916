// The embpriv side of tests/models/transformers_check.py (hidden: run by that script, on a
// machine with the `transformers` package): every model the script built and ran with
// transformers is loaded with embpriv and run on the same ids, and every tokenizer.json encodes
// the same texts; EMBPRIV_TRANSFORMERS_CHECK names the script's folder (manifest.json).
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "data/tokenizers/tokenizer.h"
#include "models/hf_encoder_model.h"
#include "models/language_model.h"

using namespace embpriv;

namespace {

at::Tensor json_tensor(const nlohmann::json& j, at::ScalarType type) {
  std::vector<double> values;
  std::vector<std::int64_t> shape;
  for (const nlohmann::json* level = &j; level->is_array(); level = &(*level)[0]) {
    shape.push_back(static_cast<std::int64_t>(level->size()));
  }
  const std::function<void(const nlohmann::json&)> flatten = [&](const nlohmann::json& x) {
    if (!x.is_array()) return values.push_back(x.get<double>());
    for (const auto& y : x) flatten(y);
  };
  flatten(j);
  return at::tensor(values, at::kDouble).reshape(shape).to(type);
}

// max |a - b| over max |b|.
double relative_error(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b).abs().max().item<double>() / b.abs().max().item<double>();
}

}  // namespace

TEST_CASE("embpriv agrees with transformers on the models and tokenizers transformers_check.py wrote",
          "[.][transformers]") {
  const char* folder = std::getenv("EMBPRIV_TRANSFORMERS_CHECK");
  if (folder == nullptr) {
    WARN("EMBPRIV_TRANSFORMERS_CHECK is not set: run tests/models/transformers_check.py");
    return;
  }
  std::ifstream in(std::string(folder) + "/manifest.json");
  REQUIRE(in);
  const nlohmann::json manifest = nlohmann::json::parse(in);
  for (const nlohmann::json& c : manifest["models"]) {
    const std::string path = c["folder"].get<std::string>();
    INFO(path);
    if (c["kind"] == "encoder") {
      const HfEncoderModel model(load_hf_encoder(path));
      const at::Tensor ids = json_tensor(c["ids"], at::kLong), mask = json_tensor(c["mask"], at::kLong);
      EncoderInput input{model.embed(ids), mask, json_tensor(c["types"], at::kLong), model.position_ids_from_ids(ids)};
      const at::Tensor hidden = model.hidden_states(input);
      const at::Tensor real = mask.to(at::kBool);
      const at::Tensor expected_hidden = json_tensor(c["hidden"], at::kDouble);
      CHECK(relative_error(hidden.index({real}), expected_hidden.index({real})) < 1e-4);
      CHECK(relative_error(model.pool(hidden, mask), json_tensor(c["pooled"], at::kDouble)) < 1e-4);
      CHECK(relative_error(model.classify(hidden), json_tensor(c["logits"], at::kDouble)) < 1e-4);
    } else {
      const std::unique_ptr<LanguageModel> model = load_language_model(path);
      const at::Tensor logits = model->forward_ids(json_tensor(c["ids"], at::kLong));
      CHECK(relative_error(logits, json_tensor(c["logits"], at::kDouble)) < 1e-4);
    }
  }
  for (const nlohmann::json& t : manifest["tokenizers"]) {
    const std::string path = t["tokenizer"].get<std::string>();
    INFO(path);
    const std::unique_ptr<Tokenizer> tokenizer = load_tokenizer(path);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < t["texts"].size(); ++i) {
      const std::string text = t["texts"][i].get<std::string>();
      const std::vector<std::int64_t> expected = t["ids"][i].get<std::vector<std::int64_t>>();
      if (tokenizer->encode(text, true) != expected && ++wrong <= 3) FAIL_CHECK("text '" << text << "'");
    }
    CHECK(wrong == 0);
  }
}
