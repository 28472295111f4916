// The llama2.c model on the real stories260K checkpoint: greedy text, agreement with an
// independent numpy implementation, embeddings in = ids in, and bad files.
#include "core/source_dir.h"
#include "tests/catch.h"
#include <ATen/ATen.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "data/tokenizers/llama2c_tokenizer.h"
#include "models/llama2c_model.h"
#include "tests/test_data.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("stories260K loads with the header of the data README", "[models]") {
  const Llama2cWeights w = load_llama2c_checkpoint(stories260k_checkpoint());
  CHECK(w.config.dim == 64);
  CHECK(w.config.hidden_dim == 172);
  CHECK(w.config.n_layers == 5);
  CHECK(w.config.n_heads == 8);
  CHECK(w.config.n_kv_heads == 4);
  CHECK(w.config.vocab_size == 512);
  CHECK(w.config.shared_classifier);
  CHECK(w.token_embedding.sizes() == at::IntArrayRef{512, 64});
  CHECK(w.classifier.data_ptr() == w.token_embedding.data_ptr());
}

TEST_CASE("greedy generation from <s> tells the story of Lily", "[models]") {
  const Llama2cModel model(load_llama2c_checkpoint(stories260k_checkpoint()));
  const Llama2cTokenizer tokenizer = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  const std::vector<std::int64_t> tokens = model.generate_greedy({Llama2cTokenizer::kBos}, 40);
  const std::string text = tokenizer.decode_pieces(tokens);
  INFO(text);
  CHECK(text.rfind(" Once upon a time, there was a little girl named Lily.", 0) == 0);
}

TEST_CASE("logits match an independent numpy implementation within 1e-4", "[models]") {
  const Llama2cModel model(load_llama2c_checkpoint(stories260k_checkpoint()));
  const Llama2cTokenizer tokenizer = Llama2cTokenizer::load(stories260k_tokenizer(), 512);
  const std::vector<std::int64_t> tokens = tokenizer.encode("The cat sat on the mat. Tim was happy!");
  const fs::path out = fs::temp_directory_path() / ("embpriv_llama_ref_" + std::to_string(getpid()));
  std::string command = EMBPRIV_TEST_PYTHON " " + std::string(embpriv::source_dir()) +
                        "/tests/models/llama2c_reference.py " + stories260k_checkpoint() + " " +
                        out.string();
  for (std::int64_t t : tokens) command += " " + std::to_string(t);
  REQUIRE(std::system(command.c_str()) == 0);
  std::vector<double> expected(tokens.size() * 512);
  std::ifstream(out, std::ios::binary).read(reinterpret_cast<char*>(expected.data()),
                                            static_cast<std::streamsize>(expected.size() * 8));
  fs::remove(out);
  const at::Tensor reference =
      at::from_blob(expected.data(), {static_cast<std::int64_t>(tokens.size()), 512}, at::kDouble);
  const at::Tensor logits = model.forward_ids(at::tensor(tokens, at::kLong)).to(at::kDouble);
  const double worst = (logits - reference).abs().max().item<double>();
  INFO("max |logit difference| = " << worst << " over " << tokens.size() << " positions");
  CHECK(worst < 1e-4);
  CHECK(reference.abs().max().item<double>() > 1);  // the comparison is not of zeros
  // Input embeddings give the same logits as ids (the split-inference hook), batched too.
  const at::Tensor ids = at::tensor(tokens, at::kLong);
  CHECK(at::allclose(model.forward_embeddings(model.embed(ids)), model.forward_ids(ids)));
  const at::Tensor batch = model.forward_embeddings(at::stack({model.embed(ids), model.embed(ids)}));
  CHECK(at::allclose(batch[1], model.forward_ids(ids), 1e-5, 1e-5));
  // A perturbed input changes the output.
  const at::Tensor perturbed = model.embed(ids) + 0.5 * at::randn({ids.size(0), 64});
  CHECK(!at::allclose(model.forward_embeddings(perturbed), model.forward_ids(ids), 1e-3, 1e-3));
}

TEST_CASE("truncated or foreign checkpoints and bad inputs give one clear error", "[models]") {
  const fs::path dir = fs::temp_directory_path() / ("embpriv_llama_bad_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(stories260k_checkpoint(), dir / "cut.bin");
  fs::resize_file(dir / "cut.bin", 500000);
  CHECK_THROWS_WITH(load_llama2c_checkpoint((dir / "cut.bin").string()), Contains("is truncated: it ends inside"));
  std::ofstream(dir / "text.bin") << "this is not a checkpoint at all, just some text";
  CHECK_THROWS_WITH(load_llama2c_checkpoint((dir / "text.bin").string()), Contains("not a llama2.c checkpoint"));
  std::ofstream(dir / "short.bin") << "abc";
  CHECK_THROWS_WITH(load_llama2c_checkpoint((dir / "short.bin").string()), Contains("too short"));
  CHECK_THROWS_WITH(load_llama2c_checkpoint((dir / "none.bin").string()), Contains("cannot read"));
  const Llama2cModel model(load_llama2c_checkpoint(stories260k_checkpoint()));
  CHECK_THROWS_WITH(model.forward_embeddings(at::zeros({3, 63})), Contains("[T, 64]"));
  CHECK_THROWS_WITH(model.forward_ids(at::tensor(std::vector<std::int64_t>{1, 512}, at::kLong)),
                    Contains("token ids must be in [0, 512), got 512"));
  at::Tensor nan = at::zeros({2, 64});
  nan[1][3] = NAN;
  CHECK_THROWS_WITH(model.forward_embeddings(nan), Contains("NaN"));
  fs::remove_all(dir);
}
