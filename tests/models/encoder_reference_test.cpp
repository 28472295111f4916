// The Hugging Face encoder forward pass (BERT, RoBERTa, XLM-RoBERTa) against an independent
// float64 numpy implementation (tests/models/hf_encoder_reference.py) on tiny random models that
// numpy writes, one per variant: BertForSequenceClassification in float32 with CLS pooling,
// BertModel in float16 with TensorFlow-style LayerNorm names and max pooling, a sharded bfloat16
// RobertaForSequenceClassification (padding_idx positions, mean pooling), XLM-RoBERTa as a
// sentence-transformers folder. Hidden states, pooled vectors and logits must agree to 1e-5 of
// the reference's largest value, on a batch with padding and token types.
#include "core/source_dir.h"
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/hf_encoder_model.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

const std::string kReference = std::string(embpriv::source_dir()) + "/tests/models/hf_encoder_reference.py";

void make_reference_encoder(const std::string& variant, const std::string& folder, int seed) {
  const std::string command = EMBPRIV_TEST_PYTHON " " + kReference + " make " + variant + " " + folder + " " + std::to_string(seed);
  REQUIRE(std::system(command.c_str()) == 0);
}

struct ReferenceOutputs {
  at::Tensor hidden, pooled, logits;  // float64; logits undefined without a head
};

at::Tensor to_tensor(const nlohmann::json& j) {
  std::vector<double> values;
  std::vector<std::int64_t> shape;
  const nlohmann::json* level = &j;
  while (level->is_array()) {
    shape.push_back(static_cast<std::int64_t>(level->size()));
    level = &(*level)[0];
  }
  const std::function<void(const nlohmann::json&)> flatten = [&](const nlohmann::json& x) {
    if (x.is_array()) {
      for (const auto& y : x) flatten(y);
    } else {
      values.push_back(x.get<double>());
    }
  };
  flatten(j);
  return at::tensor(values, at::kDouble).reshape(shape);
}

ReferenceOutputs reference_outputs(const std::string& folder, const nlohmann::json& input, const TempDir& dir) {
  const std::string in = dir / "in.json", out = dir / "out.json";
  std::ofstream(in) << input.dump();
  const std::string command = EMBPRIV_TEST_PYTHON " " + kReference + " outputs " + folder + " " + in + " " + out;
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream result(out);
  const nlohmann::json j = nlohmann::json::parse(result);
  return {to_tensor(j["hidden"]), to_tensor(j["pooled"]), j["logits"].is_null() ? at::Tensor() : to_tensor(j["logits"])};
}

at::Tensor long_tensor(const nlohmann::json& rows) {
  return to_tensor(rows).to(at::kLong);
}

// max |a - b| over max |b|.
double relative_error(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b).abs().max().item<double>() / b.abs().max().item<double>();
}

// Two texts of 9 tokens, the first padded after 6 (pad id 0 for BERT, 1 for RoBERTa), with
// token types where the model has two.
nlohmann::json batch(std::int64_t pad, bool types) {
  nlohmann::json input;
  input["ids"] = {{2, 17, 33, 9, 41, 3, pad, pad, pad}, {2, 5, 48, 12, 7, 26, 30, 11, 3}};
  input["mask"] = {{1, 1, 1, 1, 1, 1, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1, 1}};
  input["types"] = types ? nlohmann::json{{0, 0, 0, 0, 1, 1, 0, 0, 0}, {0, 0, 0, 1, 1, 1, 1, 1, 1}}
                         : nlohmann::json{{0, 0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0}};
  return input;
}

}  // namespace

TEST_CASE("HF encoder variants match the float64 numpy reference to 1e-5", "[models][encoder]") {
  const std::string variant = GENERATE(as<std::string>{}, "bert_classifier_f32", "bert_model_f16",
                                       "roberta_classifier_bf16_sharded", "xlm_roberta_model_f32");
  INFO(variant);
  TempDir dir("embpriv_encoder_variant");
  const std::string folder = dir / variant;
  make_reference_encoder(variant, folder, 7);
  const HfEncoderModel model(load_hf_encoder(folder));
  const bool bert = model.config().model_type == "bert";
  const nlohmann::json input = batch(model.config().pad_token_id, bert);
  const ReferenceOutputs expected = reference_outputs(folder, input, dir);
  const at::Tensor ids = long_tensor(input["ids"]), mask = long_tensor(input["mask"]);
  EncoderInput in;
  in.embeddings = model.embed(ids);
  in.attention_mask = mask;
  in.token_type_ids = long_tensor(input["types"]);
  in.position_ids = model.position_ids_from_ids(ids);
  const at::Tensor hidden = model.hidden_states(in);
  // Padding positions' own states are not compared (nothing reads them); every real token is.
  const at::Tensor real = mask.to(at::kBool);
  const double hidden_error = relative_error(hidden.index({real}), expected.hidden.index({real}));
  const double pooled_error = relative_error(model.pool(hidden, mask), expected.pooled);
  INFO("hidden " << hidden_error << ", pooled " << pooled_error << " (" << encoder_pooling_name(model.pooling()) << ")");
  CHECK(hidden_error < 1e-5);
  CHECK(pooled_error < 1e-5);
  CHECK(expected.hidden.abs().max().item<double>() > 0.5);
  if (expected.logits.defined()) {
    REQUIRE(model.num_labels() == expected.logits.size(1));
    const double logit_error = relative_error(model.classify(hidden), expected.logits);
    INFO("logits " << logit_error);
    CHECK(logit_error < 1e-5);
  } else {
    CHECK(model.num_labels() == 0);
  }
  // Each text alone (no padding) gives its batched states.
  const at::Tensor alone = model.hidden_states_of_ids(ids[0].narrow(0, 0, 6));
  if (bert) {
    CHECK(model.config().type_vocab_size == 2);  // types differ from zeros here: compare the unpadded text
    const at::Tensor second = model.hidden_states_of_ids(ids[1]);
    CHECK((second - model.hidden_states_of_ids(ids.narrow(0, 1, 1), mask.narrow(0, 1, 1))[0]).abs().max().item<double>() < 1e-5);
  } else {
    CHECK((alone - hidden[0].narrow(0, 0, 6)).abs().max().item<double>() < 1e-4);
  }
}

TEST_CASE("each encoder feature matters: leaving it out leaves the reference", "[models][encoder]") {
  // The comparison above can fail: RoBERTa positions without the padding_idx offset, BERT
  // without token types or without the attention mask, a pooling other than the folder's, or
  // leaving out the Normalize module move the outputs far beyond 1e-5.
  TempDir dir("embpriv_encoder_broken");
  const std::string roberta = dir / "roberta", bert = dir / "bert";
  make_reference_encoder("roberta_classifier_bf16_sharded", roberta, 7);
  make_reference_encoder("bert_classifier_f32", bert, 7);
  {
    const HfEncoderModel model(load_hf_encoder(roberta));
    const nlohmann::json input = batch(1, false);
    const ReferenceOutputs expected = reference_outputs(roberta, input, dir);
    const at::Tensor ids = long_tensor(input["ids"]), mask = long_tensor(input["mask"]);
    EncoderInput in{model.embed(ids), mask, at::Tensor(), at::arange(9).unsqueeze(0).expand({2, 9})};
    CHECK(relative_error(model.classify(model.hidden_states(in)), expected.logits) > 1e-2);
    in.position_ids = model.position_ids_from_ids(ids);
    CHECK(relative_error(model.classify(model.hidden_states(in)), expected.logits) < 1e-5);
    HfEncoderModel cls(model.weights());
    cls.set_pooling(EncoderPooling::cls);
    CHECK(relative_error(cls.pool(cls.hidden_states(in), mask), expected.pooled) > 1e-2);
  }
  {  // A sentence-transformers folder whose modules.json ends with Normalize: without it, not the reference.
    const std::string xlmr = dir / "xlmr";
    make_reference_encoder("xlm_roberta_model_f32", xlmr, 7);
    HfEncoderModel model(load_hf_encoder(xlmr));
    const nlohmann::json input = batch(1, false);
    const ReferenceOutputs expected = reference_outputs(xlmr, input, dir);
    const at::Tensor ids = long_tensor(input["ids"]), mask = long_tensor(input["mask"]);
    const at::Tensor hidden = model.hidden_states_of_ids(ids, mask);
    CHECK(relative_error(model.pool(hidden, mask), expected.pooled) < 1e-5);
    model.set_normalize(false);
    CHECK(relative_error(model.pool(hidden, mask), expected.pooled) > 1e-2);
  }
  {
    const HfEncoderModel model(load_hf_encoder(bert));
    const nlohmann::json input = batch(0, true);
    const ReferenceOutputs expected = reference_outputs(bert, input, dir);
    const at::Tensor ids = long_tensor(input["ids"]), mask = long_tensor(input["mask"]);
    const at::Tensor without_types = model.hidden_states_of_ids(ids, mask);
    CHECK(relative_error(model.classify(without_types), expected.logits) > 1e-2);
    // Without the attention mask the padded text attends to its padding.
    EncoderInput in{model.embed(ids), at::Tensor(), long_tensor(input["types"]), model.position_ids_from_ids(ids)};
    CHECK(relative_error(model.classify(model.hidden_states(in))[0], expected.logits[0]) > 1e-2);
    in.attention_mask = mask;
    CHECK(relative_error(model.classify(model.hidden_states(in)), expected.logits) < 1e-5);
  }
}
