// `embpriv embed` and TextModel::embed (what embpriv.load_model(...).encode runs) on CUDA give the
// CPU's vectors within 1e-5 of the largest value: a random BERT folder (every pooling, BERT's
// pooler among them) and stories260K as a Hugging Face Llama folder (mean of the last hidden
// state). float32 reductions run in another order on the GPU (cuBLAS, no TF32), so the vectors
// agree to rounding, not bit for bit. Without a CUDA GPU each test says so and returns, as the
// other [cuda] tests do (tests/cuda/cuda_vs_cpu_test.cpp).
#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/version.h>

#include "tests/catch.h"

#include <fstream>

#include "experiments/results/vector_file.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_config.h"
#include "models/hf_encoder_init.h"
#include "models/text_model.h"
#include "tests/test_bert_tokenizer.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

// max |gpu - cpu| over the largest |cpu| (at least 1).
double relative_difference(const at::Tensor& gpu, const at::Tensor& cpu) {
  const at::Tensor expected = cpu.to(at::kDouble);
  const double scale = std::max(1.0, expected.abs().max().item<double>());
  return (gpu.cpu().to(at::kDouble) - expected).abs().max().item<double>() / scale;
}

const std::vector<std::string> kPieces = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "cat", "dog",
                                          "sat", "on", "mat", "and", "ran", "far", "away", "good", "bad", "movie",
                                          "was", ".", ",", "!", "it", "is", "not", "very", "##s", "##ing", "##ed"};

// A random BERT (2 layers, hidden 64, a pooler) with a WordPiece tokenizer.json of kPieces.
std::string make_bert_folder(const TempDir& dir) {
  const std::string folder = dir / "bert";
  EncoderSizes sizes;
  sizes.vocab = static_cast<std::int64_t>(kPieces.size());
  sizes.hidden = 64;
  sizes.feedforward = 128;
  sizes.layers = 2;
  sizes.heads = 4;
  sizes.max_positions = 64;
  save_hf_encoder(random_hf_encoder(hf_encoder_config_of_sizes("bert", sizes), 5), folder);
  std::ofstream(folder + "/tokenizer.json") << bert_tokenizer_json(kPieces, 5).dump();
  return folder;
}

const std::vector<std::string> kTexts = {"The cat sat on the mat.", "a dog ran far away!", "good movie",
                                         "it is not very bad , it was good", "cats and dogs", "the"};

}  // namespace

TEST_CASE("CUDA: embed gives the CPU's vectors within 1e-5 on a random BERT, every pooling", "[cuda]") {
  if (no_cuda()) return;
  TempDir dir("embpriv_cuda_embed_bert");
  const std::string folder = make_bert_folder(dir);
  const TextModel cpu(folder), gpu(folder, kGpu);
  for (const std::string pooling : {"mean", "cls", "max", "pooler"}) {
    INFO("pooling " << pooling);
    EmbedOptions options;
    options.pooling = parse_text_pooling(pooling);
    options.batch_size = 4;
    const at::Tensor expected = cpu.embed(kTexts, options).vectors;
    const at::Tensor vectors = gpu.embed(kTexts, options).vectors;
    CHECK(vectors.device() == kGpu);
    CHECK(relative_difference(vectors, expected) < 1e-5);
  }
  // The command line's --device cuda writes the same vectors.
  std::string lines;
  for (const std::string& t : kTexts) lines += t + "\n";
  write_file(dir / "texts.txt", lines);
  REQUIRE(run_binary("-q embed '" + folder + "' -i '" + dir / "texts.txt" + "' -o '" + dir / "cpu.h5" + "'").code == 0);
  REQUIRE(run_binary("-q embed '" + folder + "' -i '" + dir / "texts.txt" + "' -o '" + dir / "gpu.h5" +
                     "' --device cuda")
              .code == 0);
  CHECK(relative_difference(read_vector_file(dir / "gpu.h5").vectors, read_vector_file(dir / "cpu.h5").vectors) < 1e-5);
}

TEST_CASE("CUDA: embed gives the CPU's vectors within 1e-5 on stories260K as a decoder", "[cuda]") {
  if (no_cuda()) return;
  TempDir dir("embpriv_cuda_embed_decoder");
  const std::string folder = dir / "stories";
  REQUIRE(run_binary("-q convert llama2c-to-hf --model tinyllama/stories260K.bin --tokenizer tinyllama/tok512.bin --out '" +
                     folder + "'")
              .code == 0);
  const std::vector<std::string> texts = {"Once upon a time", "The little dog was happy.", "Lily", "She ran home."};
  EmbedOptions options;
  options.batch_size = 3;
  const at::Tensor expected = TextModel(folder).embed(texts, options).vectors;
  const at::Tensor vectors = TextModel(folder, kGpu).embed(texts, options).vectors;
  CHECK(vectors.device() == kGpu);
  CHECK(relative_difference(vectors, expected) < 1e-5);
}
