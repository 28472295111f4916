// Bad encoder folders and configs: each is refused with one embpriv::Error (bad input) naming the
// key, the tensor or the file, before any computation; what the defaults of transformers'
// BertConfig/RobertaConfig give when keys are left out.
#include "core/source_dir.h"
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "data/tables/embedding_formats.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_model.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

void make_encoder(const std::string& variant, const std::string& folder) {
  const std::string command = EMBPRIV_TEST_PYTHON " " + std::string(embpriv::source_dir()) +
                              "/tests/models/hf_encoder_reference.py make " + variant + " " + folder + " 5";
  REQUIRE(std::system(command.c_str()) == 0);
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

void write_json(const std::string& path, const nlohmann::json& j) { std::ofstream(path) << j.dump(2); }

std::string load_refusal(const std::string& folder) {
  try {
    load_hf_encoder(folder);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::bad_input);
    return e.what();
  }
  return "accepted";
}

std::string config_refusal(const nlohmann::json& config) {
  try {
    parse_hf_encoder_config(config.dump(), "config.json");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::bad_input);
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("encoder config.json: defaults and refusals name the key", "[models][encoder]") {
  const nlohmann::json good = {{"model_type", "bert"}, {"vocab_size", 50}, {"hidden_size", 32}, {"intermediate_size", 48},
                               {"num_hidden_layers", 2}, {"num_attention_heads", 4}};
  CHECK(config_refusal(good) == "accepted");
  const HfEncoderConfig c = parse_hf_encoder_config(good.dump(), "config.json");
  CHECK(c.max_position_embeddings == 512);
  CHECK(c.type_vocab_size == 2);
  CHECK(c.layer_norm_eps == 1e-12);
  CHECK(c.pad_token_id == 0);
  CHECK(c.initializer_range == 0.02);  // BertConfig's default
  CHECK_FALSE(c.sequence_classification);
  nlohmann::json other = good;
  other["model_type"] = "roberta";
  CHECK(parse_hf_encoder_config(other.dump(), "config.json").pad_token_id == 1);  // RobertaConfig's default
  other["architectures"] = {"RobertaForSequenceClassification"};
  CHECK(parse_hf_encoder_config(other.dump(), "config.json").num_labels == 2);  // id2label left out: two labels
  other["id2label"] = {{"0", "a"}, {"1", "b"}, {"2", "c"}, {"3", "d"}};
  CHECK(parse_hf_encoder_config(other.dump(), "config.json").num_labels == 4);
  other = good;
  other["model_type"] = "distilbert";
  CHECK_THAT(config_refusal(other), Contains("unsupported model_type 'distilbert'"));
  other = good;
  other["hidden_act"] = "gelu_new";
  CHECK_THAT(config_refusal(other), Contains("unsupported hidden_act \"gelu_new\""));
  other = good;
  other["position_embedding_type"] = "relative_key";
  CHECK_THAT(config_refusal(other), Contains("unsupported position_embedding_type \"relative_key\""));
  other = good;
  other["is_decoder"] = true;
  CHECK_THAT(config_refusal(other), Contains("'is_decoder'"));
  other = good;
  other.erase("intermediate_size");
  CHECK_THAT(config_refusal(other), Contains("missing key 'intermediate_size'"));
  other = good;
  other["num_attention_heads"] = 5;
  CHECK_THAT(config_refusal(other), Contains("'hidden_size' 32 is not a multiple of 'num_attention_heads' 5"));
  other = good;
  other["architectures"] = {"BertForTokenClassification"};
  CHECK(config_refusal(other) == "accepted");  // an encoder without a head embpriv uses
  other["architectures"] = {"DistilBertForSequenceClassification"};
  CHECK_THAT(config_refusal(other), Contains("unsupported architectures[0] 'DistilBertForSequenceClassification'"));
  other = good;
  other["architectures"] = {"BertForSequenceClassification"};
  other["id2label"] = {{"0", "a"}, {"1", "b"}};
  other["num_labels"] = 3;
  CHECK_THAT(config_refusal(other), Contains("'num_labels' 3 disagrees with the 2 labels of 'id2label'"));
  other = good;
  other["initializer_range"] = 0.5;
  CHECK(parse_hf_encoder_config(other.dump(), "config.json").initializer_range == 0.5);
  other["initializer_range"] = 0;
  CHECK_THAT(config_refusal(other), Contains("'initializer_range' must be a positive number, got 0"));
  other["initializer_range"] = "0.02";
  CHECK_THAT(config_refusal(other), Contains("'initializer_range' must be a positive number, got \"0.02\""));
  other = good;
  other["pad_token_id"] = 50;
  CHECK_THAT(config_refusal(other), Contains("'pad_token_id' must be a token id in [0, 50)"));
  // Sizes whose parameter count no int64 holds (hidden_size 2^40: 2^82 per layer; vocab_size
  // 2^62 x 32 word embeddings) are refused naming the keys of the largest part, not overflowed.
  other = good;
  other["hidden_size"] = std::int64_t{1} << 40;
  CHECK_THAT(config_refusal(other), Contains("config.json: 'num_hidden_layers' 2, 'hidden_size' 1099511627776 and 'intermediate_size' 48 make") &&
                                        Contains("more than the 2^53"));
  other = good;
  other["vocab_size"] = std::int64_t{1} << 62;
  CHECK_THAT(config_refusal(other),
             Contains("config.json: 'vocab_size' 4611686018427387904 x 'hidden_size' 32 word embeddings make a model of"));
  other = good;  // 2^53 parameters and a little less are accepted: 2^47 words of width 32 = 2^52
  other["vocab_size"] = std::int64_t{1} << 47;
  CHECK(config_refusal(other) == "accepted");
}

TEST_CASE("encoder folders whose config, weights, pooling or tokenizer disagree are refused by name", "[models][encoder]") {
  TempDir dir("embpriv_encoder_folder");
  const std::string bert = dir / "bert", roberta = dir / "roberta";
  make_encoder("bert_classifier_f32", bert);
  make_encoder("roberta_classifier_bf16_sharded", roberta);
  REQUIRE(load_refusal(bert) == "accepted");
  REQUIRE(load_refusal(roberta) == "accepted");
  const nlohmann::json config = read_json(bert + "/config.json");

  // A shape config.json does not imply: the tensor and both shapes are named.
  nlohmann::json c = config;
  c["intermediate_size"] = 40;
  write_json(bert + "/config.json", c);
  CHECK_THAT(load_refusal(bert), Contains("tensor 'bert.encoder.layer.0.intermediate.dense.weight' has shape [48, 32], "
                                          "config.json implies [40, 32]"));
  c = config;
  c["vocab_size"] = 60;
  write_json(bert + "/config.json", c);
  CHECK_THAT(load_refusal(bert), Contains("'bert.embeddings.word_embeddings.weight' has shape [50, 32]"));
  // More labels than the classifier has.
  c = config;
  c["id2label"] = {{"0", "a"}, {"1", "b"}, {"2", "c"}, {"3", "d"}};
  write_json(bert + "/config.json", c);
  CHECK_THAT(load_refusal(bert), Contains("tensor 'classifier.weight' has shape [3, 32], config.json implies [4, 32]"));
  write_json(bert + "/config.json", config);

  // A tokenizer with more ids than vocab_size.
  nlohmann::json vocab = nlohmann::json::object();
  for (int i = 0; i < 55; ++i) vocab["t" + std::to_string(i)] = i;
  write_json(bert + "/tokenizer.json", {{"model", {{"type", "WordPiece"}, {"vocab", vocab}}}});
  CHECK_THAT(load_refusal(bert), Contains("assigns 55 token ids, more than config.json's 'vocab_size' 50"));
  fs::remove(bert + "/tokenizer.json");

  // Pooling: two modes, an unsupported one, a dimension that disagrees.
  const nlohmann::json pooling = read_json(bert + "/1_Pooling/config.json");
  nlohmann::json p = pooling;
  p["pooling_mode_mean_tokens"] = true;
  write_json(bert + "/1_Pooling/config.json", p);
  CHECK_THAT(load_refusal(bert), Contains("exactly one of pooling_mode_cls_token, pooling_mode_mean_tokens, "
                                          "pooling_mode_max_tokens must be true, got 2"));
  p = pooling;
  p["pooling_mode_weightedmean_tokens"] = true;
  write_json(bert + "/1_Pooling/config.json", p);
  CHECK_THAT(load_refusal(bert), Contains("unsupported 'pooling_mode_weightedmean_tokens' true"));
  p = pooling;
  p["word_embedding_dimension"] = 768;
  write_json(bert + "/1_Pooling/config.json", p);
  CHECK_THAT(load_refusal(bert), Contains("'word_embedding_dimension' 768 disagrees with the model's hidden_size 32"));
  write_json(bert + "/1_Pooling/config.json", pooling);

  // BertForSequenceClassification without its pooler.
  {
    SafetensorsFile file(bert + "/model.safetensors");
    std::vector<std::pair<std::string, at::Tensor>> kept;
    for (const std::string& name : file.names()) {
      if (name.find("pooler") == std::string::npos) kept.emplace_back(name, file.tensor(name).clone());
    }
    write_safetensors(bert + "/model.safetensors", kept);
  }
  CHECK_THAT(load_refusal(bert), Contains("no tensor 'bert.pooler.dense.weight' (BertForSequenceClassification classifies "
                                          "the pooler's output)"));
  // The same weights as a plain BertModel (hidden states only) load without the pooler.
  c = config;
  c["architectures"] = {"BertModel"};
  write_json(bert + "/config.json", c);
  const HfEncoderModel plain(load_hf_encoder(bert));
  CHECK(plain.num_labels() == 0);
  CHECK_THROWS_WITH(plain.classify(at::zeros({1, 3, 32})), Contains("no sequence-classification head"));

  // RoBERTa: a shard the index names is missing; inputs longer than the positions after padding_idx.
  const HfEncoderModel model(load_hf_encoder(roberta));
  CHECK(model.max_sequence_length() == 66 - 1 - 1);
  CHECK_THROWS_WITH(model.hidden_states_of_ids(at::full({65}, 5, at::kLong)), Contains("sequence length must be in [1, 64]"));
  CHECK_THROWS_WITH(model.hidden_states_of_ids(at::full({1, 4}, 5, at::kLong), at::zeros({1, 4}, at::kLong)),
                    Contains("every attention_mask row needs at least one token"));
  fs::remove(roberta + "/model-00002-of-00002.safetensors");
  CHECK_THAT(load_refusal(roberta), Contains("names the shard 'model-00002-of-00002.safetensors', which is missing"));
  CHECK_THAT(load_refusal(dir / "nowhere"), Contains("is not a model folder"));
}

TEST_CASE("an encoder folder with a NaN weight or a tensor config.json does not use is refused naming the tensor",
          "[models][encoder]") {
  TempDir dir("embpriv_encoder_checks");
  const std::string bert = dir / "bert";
  make_encoder("bert_classifier_f32", bert);
  REQUIRE(load_refusal(bert) == "accepted");
  const std::string weights = bert + "/model.safetensors";
  std::vector<std::pair<std::string, at::Tensor>> original;
  {
    SafetensorsFile file(weights);
    for (const std::string& name : file.names()) original.emplace_back(name, file.tensor(name).clone());
  }
  // The same weights with one change, written back over the folder's file.
  const auto rewrite = [&](const std::string& poisoned, const std::string& extra) {
    std::vector<std::pair<std::string, at::Tensor>> tensors;
    for (const auto& [name, t] : original) {
      at::Tensor copy = t.clone();
      if (name == poisoned) copy.view({-1})[3] = std::nanf("");
      tensors.emplace_back(name, copy);
    }
    if (!extra.empty()) tensors.emplace_back(extra, at::ones({4}, at::kFloat));
    write_safetensors(weights, tensors);
  };

  rewrite("bert.encoder.layer.1.attention.self.key.weight", "");
  CHECK_THAT(load_refusal(bert), Contains("model.safetensors: tensor 'bert.encoder.layer.1.attention.self.key.weight' "
                                          "holds a non-finite weight (NaN or Inf) at element 3"));
  rewrite("", "bert.encoder.layer.2.output.dense.bias");
  CHECK_THAT(load_refusal(bert), Contains("holds 1 tensor(s) config.json does not use "
                                          "('bert.encoder.layer.2.output.dense.bias')"));
  // The masked-LM head and the position_ids buffer that BertForPreTraining checkpoints carry are
  // not weights of the encoder: accepted.
  rewrite("", "cls.predictions.bias");
  CHECK(load_refusal(bert) == "accepted");
  rewrite("", "bert.embeddings.position_ids");
  CHECK(load_refusal(bert) == "accepted");
  rewrite("", "");
  CHECK(load_refusal(bert) == "accepted");
}

TEST_CASE("a sentence-transformers modules.json: Pooling where it says, Normalize applied, other modules refused by name",
          "[models][encoder]") {
  TempDir dir("embpriv_encoder_modules");
  const std::string folder = dir / "xlmr";
  make_encoder("xlm_roberta_model_f32", folder);  // Transformer, Pooling (mean), Normalize
  const nlohmann::json modules = read_json(folder + "/modules.json");
  REQUIRE(modules.size() == 3);
  const HfEncoderModel model(load_hf_encoder(folder));
  CHECK(model.weights().normalize);
  const at::Tensor ids = at::tensor({0, 5, 9, 13, 2}, at::kLong).unsqueeze(0);
  const at::Tensor hidden = model.hidden_states_of_ids(ids);
  const at::Tensor pooled = model.pool(hidden, at::Tensor());
  CHECK(std::abs(pooled.norm().item<double>() - 1.0) < 1e-6);
  HfEncoderModel unnormalised(model.weights());
  unnormalised.set_normalize(false);
  const at::Tensor raw = unnormalised.pool(hidden, at::Tensor());
  CHECK(raw.norm().item<double>() > 1.5);  // mean of LayerNorm outputs of width 32: not unit length
  CHECK((pooled - raw / raw.norm()).abs().max().item<double>() < 1e-6);

  // The Pooling module's own folder, wherever modules.json puts it.
  fs::rename(folder + "/1_Pooling", folder + "/pool");
  nlohmann::json m = modules;
  m[1]["path"] = "pool";
  nlohmann::json cls = read_json(folder + "/pool/config.json");
  cls["pooling_mode_mean_tokens"] = false;
  cls["pooling_mode_cls_token"] = true;
  write_json(folder + "/pool/config.json", cls);
  write_json(folder + "/modules.json", m);
  CHECK(load_hf_encoder(folder).pooling == EncoderPooling::cls);

  // A Dense module after pooling (as some sentence encoders have), a Transformer in a subfolder,
  // no Pooling, a list that is not a list: one error each, naming the module or the file.
  m = modules;
  m[1]["path"] = "pool";
  m[2] = {{"idx", 2}, {"name", "2"}, {"path", "2_Dense"}, {"type", "sentence_transformers.models.Dense"}};
  write_json(folder + "/modules.json", m);
  CHECK_THAT(load_refusal(folder), Contains("modules.json: module 2 is sentence_transformers.models.Dense, which embpriv "
                                            "does not compute there"));
  m = modules;
  m[0]["path"] = "0_Transformer";
  write_json(folder + "/modules.json", m);
  CHECK_THAT(load_refusal(folder), Contains("the Transformer module lives in '0_Transformer'"));
  // A Pooling path that leaves the folder ("../x", an absolute path) is refused as the shard
  // index's is, even where a valid pooling config lies there.
  fs::create_directories(dir / "outside");
  write_json(dir / "outside" + "/config.json", cls);
  for (const std::string& away : {std::string("../outside"), fs::absolute(dir / "outside").string(), std::string(".")}) {
    INFO(away);
    m = modules;
    m[1]["path"] = away;
    write_json(folder + "/modules.json", m);
    CHECK_THAT(load_refusal(folder), Contains("modules.json: the Pooling module's path '" + away +
                                              "' is not a folder inside the model folder"));
  }
  write_json(folder + "/modules.json", nlohmann::json::array({modules[0]}));
  CHECK_THAT(load_refusal(folder), Contains("modules.json: no Pooling module"));
  write_json(folder + "/modules.json", {{"type", "sentence_transformers.models.Transformer"}});
  CHECK_THAT(load_refusal(folder), Contains("modules.json must be a JSON list of modules"));
  std::ofstream(folder + "/modules.json") << "[{\"type\": ";
  CHECK_THAT(load_refusal(folder), Contains("modules.json: malformed JSON"));
}

TEST_CASE("save_hf_encoder writes the pooling and Normalize modules that load_hf_encoder reads back", "[models][encoder]") {
  TempDir dir("embpriv_encoder_modules_saved");
  make_encoder("bert_model_f16", dir / "source");
  HfEncoderWeights w = load_hf_encoder(dir / "source");
  for (const EncoderPooling pooling : {EncoderPooling::cls, EncoderPooling::mean, EncoderPooling::max}) {
    for (const bool normalize : {false, true}) {
      w.pooling = pooling;
      w.normalize = normalize;
      const std::string folder = dir / "saved";  // saved over the last one: nothing of it stays
      save_hf_encoder(w, folder);
      const HfEncoderWeights back = load_hf_encoder(folder);
      INFO(encoder_pooling_name(pooling) << (normalize ? ", normalized" : ""));
      CHECK(back.pooling == pooling);
      CHECK(back.normalize == normalize);
    }
  }
}
