// stories260K converted to a Hugging Face Llama folder (models/llama2c_to_hf.h) and run through
// the Hugging Face path (models/hf_decoder_model.h) must reproduce the llama2.c path: logits
// within 1e-5, the same greedy text, the same perplexity, the same token ids from tokenizer.json.
#include "core/source_dir.h"
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "data/tables/embedding_formats.h"
#include "data/tokenizers/llama2c_tokenizer.h"
#include "data/tokenizers/tokenizer.h"
#include "models/hf_decoder_model.h"
#include "models/language_model_utility.h"
#include "models/llama2c_model.h"
#include "models/llama2c_to_hf.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

const std::vector<std::string> kTexts = {
    "The cat sat on the mat. Tim was happy!", "Once upon a time, there was a big red ball.",
    "Lily and Ben went to the park to play with their dog Max.", "\"Why?\" asked Mom. Zoë said: 42 naïve cafés."};

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("permute_rotary_rows turns interleaved pairs into halves, per head", "[models]") {
  // Two heads of head size 4: rows (h, j, pair) -> (h, pair, j).
  const at::Tensor w = at::arange(8, at::kFloat).unsqueeze(1);
  const at::Tensor p = permute_rotary_rows(w, 2).squeeze(1);
  CHECK(at::equal(p, at::tensor({0.f, 2.f, 1.f, 3.f, 4.f, 6.f, 5.f, 7.f})));
  CHECK_THROWS_WITH(permute_rotary_rows(at::zeros({6, 2}), 2), Catch::Contains("cannot split 6 rows"));
}

TEST_CASE("stories260K as a Hugging Face folder reproduces the llama2.c model", "[models][hf]") {
  TempDir dir("embpriv_llama2c_to_hf");
  const std::string folder = dir / "stories260K";
  convert_llama2c_to_hf(stories260k_checkpoint(), stories260k_tokenizer(), folder);

  // The layout save_pretrained gives a tied Llama: no lm_head.weight, HF names, float32.
  const SafetensorsFile file(folder + "/model.safetensors");
  CHECK_FALSE(file.contains("lm_head.weight"));
  CHECK(file.names().size() == 2 + 5 * 9);
  CHECK(file.entry("model.layers.4.self_attn.k_proj.weight").shape == std::vector<std::int64_t>{32, 64});
  CHECK(file.entry("model.layers.0.mlp.gate_proj.weight").dtype == at::kFloat);
  std::uint64_t header_length = 0;
  std::memcpy(&header_length, text_of(folder + "/model.safetensors").data(), 8);
  CHECK(header_length % 8 == 0);
  const nlohmann::json config = nlohmann::json::parse(text_of(folder + "/config.json"));
  CHECK(config["model_type"] == "llama");
  CHECK(config["tie_word_embeddings"] == true);
  CHECK(config["num_key_value_heads"] == 4);
  CHECK(config["rms_norm_eps"] == 1e-5);

  const Llama2cModel llama(load_llama2c_checkpoint(stories260k_checkpoint()));
  const std::unique_ptr<LanguageModel> hf = load_language_model(folder);
  REQUIRE(dynamic_cast<const HfDecoderModel*>(hf.get()) != nullptr);
  CHECK(hf->tied_head());
  CHECK(llama.tied_head());
  // ObfusLM's server model: other token rows, tied when one tensor is given for both.
  const at::Tensor rows = llama.embedding_table().flip(0).contiguous();
  const std::unique_ptr<LanguageModel> hf_rows = hf->with_token_rows(rows, rows);
  const std::unique_ptr<LanguageModel> llama_rows = llama.with_token_rows(rows, rows);
  CHECK(hf_rows->tied_head());
  const at::Tensor probe = at::tensor({1, 300, 20, 7}, at::kLong);
  CHECK((hf_rows->forward_ids(probe) - llama_rows->forward_ids(probe)).abs().max().item<double>() < 2e-5);
  CHECK((hf_rows->forward_ids(probe) - hf->forward_ids(probe)).abs().max().item<double>() > 1e-2);
  CHECK(at::equal(hf->embedding_table(), llama.embedding_table()));

  // The same ids from tok512.bin and from the written tokenizer.json.
  const Llama2cTokenizer tok512 = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  const std::unique_ptr<Tokenizer> tokenizer_json = load_tokenizer(folder + "/tokenizer.json");
  std::vector<std::vector<std::int64_t>> encoded;
  for (const std::string& text : kTexts) {
    INFO(text);
    encoded.push_back(tok512.encode(text));
    CHECK(tokenizer_json->encode(text, /*add_special=*/true) == encoded.back());
    CHECK(tokenizer_json->decode(encoded.back()) == tok512.decode(encoded.back()));
  }

  // Logits within 2e-5 on every position of every text, batched and not. Each path is float32
  // and lies about 1e-5 from the float64 numpy references (hf_decoder_model_test.cpp), which
  // agree with each other to 1e-12 (below); the permuted q/k rows sum q.k in another order, so
  // the two float32 paths cannot round alike: measured 1.5e-5 at most on these texts.
  double worst = 0;
  for (const auto& ids : encoded) {
    const at::Tensor t = at::tensor(ids, at::kLong);
    worst = std::max(worst, (hf->forward_ids(t) - llama.forward_ids(t)).abs().max().item<double>());
  }
  const at::Tensor batch = at::tensor(encoded[0], at::kLong).unsqueeze(0).repeat({2, 1});
  const at::Tensor hf_logits = hf->forward_ids(batch), llama_logits = llama.forward_ids(batch);
  worst = std::max(worst, (hf_logits - llama_logits).abs().max().item<double>());
  INFO("max |logit difference| = " << worst);
  CHECK(worst < 2e-5);
  CHECK(llama_logits.abs().max().item<double>() > 1);  // logits of real size, not a vacuous match

  // The same perplexity and next-token choices.
  const LanguageModelUtility u = compare_next_token_logits(batch, llama_logits, hf_logits);
  CHECK(u.next_token_agreement == 1.0);
  CHECK(std::abs(u.perplexity_perturbed - u.perplexity_clean) < 1e-5 * u.perplexity_clean);

  // The same greedy text, decoded by each model's own tokenizer.
  const std::vector<std::int64_t> llama_tokens = llama.generate_greedy({Llama2cTokenizer::kBos}, 60);
  const std::vector<std::int64_t> hf_tokens = hf->generate_greedy({Llama2cTokenizer::kBos}, 60);
  CHECK(hf_tokens == llama_tokens);
  const std::string text = tokenizer_json->decode(hf_tokens);
  INFO(text);
  CHECK(text == tok512.decode(llama_tokens));
  CHECK(text.rfind("Once upon a time, there was a little girl named Lily.", 0) == 0);
}

TEST_CASE("the converted folder is the same function as the llama2.c file, in float64", "[models][hf]") {
  // The two independent numpy references (llama2.c's run.c loop on the .bin; transformers'
  // semantics on the folder) agree to float64 rounding: the conversion changes no number.
  TempDir dir("embpriv_llama2c_to_hf_f64");
  const std::string folder = dir / "hf";
  convert_llama2c_to_hf(stories260k_checkpoint(), stories260k_tokenizer(), folder);
  const std::vector<std::int64_t> ids = Llama2cTokenizer::load(stories260k_tokenizer(), 512).encode(kTexts[2]);
  std::string tokens;
  for (const std::int64_t t : ids) tokens += " " + std::to_string(t);
  const std::string models = std::string(embpriv::source_dir()) + "/tests/models/";
  REQUIRE(std::system((EMBPRIV_TEST_PYTHON " " + models + "hf_decoder_reference.py logits " + folder + " " +
                       (dir / "hf.f64") + tokens).c_str()) == 0);
  REQUIRE(std::system((EMBPRIV_TEST_PYTHON " " + models + "llama2c_reference.py " + stories260k_checkpoint() + " " +
                       (dir / "llama2c.f64") + tokens).c_str()) == 0);
  const std::string hf = text_of(dir / "hf.f64"), llama = text_of(dir / "llama2c.f64");
  REQUIRE(hf.size() == ids.size() * 512 * 8);
  REQUIRE(llama.size() == hf.size());
  const auto as_tensor = [](const std::string& bytes) {
    return at::from_blob(const_cast<char*>(bytes.data()), {static_cast<std::int64_t>(bytes.size() / 8)}, at::kDouble);
  };
  CHECK((as_tensor(hf) - as_tensor(llama)).abs().max().item<double>() < 1e-12);
}

TEST_CASE("without the q/k permutation the converted model is wrong", "[models][hf]") {
  // The permutation is what makes rotate_half agree with llama2.c's pairs: undo it and the
  // logits move far beyond 1e-5 (the equivalence test above can fail).
  TempDir dir("embpriv_llama2c_to_hf_unpermuted");
  const std::string folder = dir / "m";
  convert_llama2c_to_hf(stories260k_checkpoint(), stories260k_tokenizer(), folder);
  HfDecoderWeights w = load_hf_checkpoint(folder);
  const Llama2cWeights original = load_llama2c_checkpoint(stories260k_checkpoint());
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    w.layers[l].q_proj = original.wq[static_cast<std::int64_t>(l)];
    w.layers[l].k_proj = original.wk[static_cast<std::int64_t>(l)];
  }
  const HfDecoderModel unpermuted(std::move(w));
  const Llama2cModel llama(load_llama2c_checkpoint(stories260k_checkpoint()));
  const at::Tensor ids = at::tensor(Llama2cTokenizer::load(stories260k_tokenizer(), 512).encode(kTexts[0]), at::kLong);
  CHECK((unpermuted.forward_ids(ids) - llama.forward_ids(ids)).abs().max().item<double>() > 1e-2);
}
