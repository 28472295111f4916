// Every part that a run's `device:` reaches (docs/models.md, "Devices"), run on CUDA and on the
// CPU with the same inputs: the language model's forward (stories260K and random Hugging Face
// Llama and Qwen2 folders), the KNN search, the learned inverter, MIA's logistic-regression fits
// and the mechanisms' ATen path. Where LibTorch sees no CUDA GPU each test says so and returns
// (Catch2 2 has no skip); scripts/device/check.sh fails on that message in its CUDA mode, so a
// GPU machine cannot pass them by skipping. Tolerances are stated per part: float32 reductions
// run in another order on the GPU (cuBLAS, no TF32: LibTorch's default for matmul), so results
// agree to rounding, not bit for bit.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/version.h>

#include "tests/catch.h"
#include <cmath>
#include <cstdlib>

#include "attacks/learned_inversion.h"
#include "attacks/nearest_rows.h"
#include "core/source_dir.h"
#include "experiments/engine/mechanism_yaml.h"
#include "mechanisms/registry.h"
#include "models/language_model.h"
#include "models/language_model_utility.h"
#include "models/logistic_regression.h"
#include "tests/cuda/cuda_test_support.h"
#include "tests/test_binary.h"
#include "tests/test_data.h"
#include "tests/test_inputs.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

double max_abs_difference(const at::Tensor& a, const at::Tensor& b) {
  return (a.cpu().to(at::kDouble) - b.cpu().to(at::kDouble)).abs().max().item<double>();
}

// The same ids on CPU and GPU: [2, 24] tokens spread over the vocabulary.
at::Tensor token_ids(std::int64_t vocab) {
  return (at::arange(48, at::kLong) * 37 + 5).remainder(vocab).reshape({2, 24});
}

// same_argmax: also the same next token everywhere (a trained float32 model: its top logits are
// far apart; a random half-precision one may have near-ties that rounding flips).
void compare_forward(const std::string& path, double tolerance, bool same_argmax) {
  const auto cpu = load_language_model(path, c10::kCPU);
  const auto gpu = load_language_model(path, kGpu);
  const at::Tensor ids = token_ids(cpu->vocab_size());
  const at::Tensor expected = cpu->forward_ids(ids);
  const at::Tensor logits = gpu->forward_ids(ids.to(kGpu));
  CHECK(logits.device() == kGpu);
  const double scale = expected.abs().max().item<double>();
  INFO(path << ": max |CUDA - CPU| = " << max_abs_difference(logits, expected) << ", max |logit| = " << scale);
  CHECK(scale > 0.5);
  CHECK(max_abs_difference(logits, expected) < tolerance * scale);
  if (same_argmax) CHECK(at::equal(logits.argmax(-1).cpu(), expected.argmax(-1)));
}

}  // namespace

TEST_CASE("CUDA: the stories260K forward matches the CPU's within 1e-4 of the largest logit", "[cuda]") {
  if (no_cuda()) return;
  compare_forward(stories260k_checkpoint(), 1e-4, true);
}

TEST_CASE("CUDA: random Hugging Face Llama and Qwen2 folders give the CPU's logits within 1e-3", "[cuda]") {
  if (no_cuda()) return;
  // The folders tests/models/hf_decoder_reference.py writes with numpy (float16 and bf16 weights
  // among them: 1e-3 of the largest logit allows for the half-precision matmuls' order).
  const std::string variant = GENERATE(as<std::string>{}, "llama_gqa_f16", "qwen2_bias");
  TempDir dir("embpriv_cuda_hf");
  const char* python = std::getenv("EMBPRIV_PYTHON");
  const std::string command = std::string(python != nullptr ? python : "python3") + " " + source_dir() +
                              "/tests/models/hf_decoder_reference.py make " + variant + " " + (dir / variant) + " 11";
  REQUIRE(std::system(command.c_str()) == 0);
  compare_forward(dir / variant, 1e-3, false);
}

TEST_CASE("CUDA: the KNN search finds the CPU's neighbours, scores within 1e-5", "[cuda]") {
  if (no_cuda()) return;
  const at::Tensor table = test_directions(5000, 64, 3);
  const at::Tensor queries = test_directions(300, 64, 4);
  for (const KnnMetric metric : {KnnMetric::cosine, KnnMetric::l2}) {
    KnnOptions options;
    options.metric = metric;
    options.k = 5;
    const Neighbours cpu = nearest_rows(queries, table, options);
    const Neighbours gpu = nearest_rows(queries.to(kGpu), table.to(kGpu), options);
    // Random continuous rows have no ties closer than rounding: the same rows, in order.
    const double agreement = gpu.indices.cpu().eq(cpu.indices).to(at::kDouble).mean().item<double>();
    INFO("metric " << static_cast<int>(metric) << ": agreement " << agreement);
    CHECK(agreement > 0.999);
    CHECK(max_abs_difference(gpu.scores, cpu.scores) < 1e-5 * (1 + cpu.scores.abs().max().item<double>()));
  }
}

TEST_CASE("CUDA: the learned inverter trains from the same start to the CPU's loss and guesses", "[cuda]") {
  if (no_cuda()) return;
  const auto model = load_language_model(stories260k_checkpoint(), c10::kCPU);
  const at::Tensor table = model->embedding_table();
  TokenSequences text;
  text.ids = (at::arange(4000, at::kLong) * 131 + 7).remainder(table.size(0));
  for (std::size_t begin = 0; begin < 4000; begin += 40) text.spans.emplace_back(begin, begin + 40);
  // Noisy rows drawn on the CPU from a fixed generator, as the experiments do.
  const RowPerturber perturb = [](const at::Tensor& rows, std::uint64_t seed) {
    at::Generator generator = at::detail::createCPUGenerator(seed);
    return rows + 0.05 * at::randn(rows.sizes(), generator, rows.options());
  };
  LearnedInversionOptions options;
  options.hidden = 64;
  options.epochs = 2;
  options.seed = 9;
  const LearnedInverter cpu = LearnedInverter::train(text, table, perturb, at::Tensor(), options);
  options.device = kGpu;
  const LearnedInverter gpu = LearnedInverter::train(text, table, perturb, at::Tensor(), options);
  INFO("final loss CPU " << cpu.final_training_loss() << ", CUDA " << gpu.final_training_loss());
  CHECK(std::abs(gpu.final_training_loss() - cpu.final_training_loss()) < 1e-3 * (1 + cpu.final_training_loss()));
  const at::Tensor noisy = perturb(table.index({text.ids}), 17);
  const at::Tensor cpu_guess = cpu.guess(noisy, text.spans, 1);
  const at::Tensor gpu_guess = gpu.guess(noisy, text.spans, 1).cpu();
  const double agreement = gpu_guess.eq(cpu_guess).to(at::kDouble).mean().item<double>();
  INFO("top-1 agreement " << agreement);
  CHECK(agreement > 0.98);
}

TEST_CASE("CUDA: MIA's logistic-regression fit gives the CPU's probabilities within 1e-9", "[cuda]") {
  if (no_cuda()) return;
  const at::Tensor features = test_directions(400, 24, 5);
  // Labels from a noisy linear rule: separable enough to fit, noisy enough for a finite optimum.
  const at::Tensor noise = test_directions(400, 1, 6).squeeze(1);
  const at::Tensor labels = (features.select(1, 0) + features.select(1, 3) + 0.5 * noise).gt(0).to(at::kFloat);
  const LogisticRegression cpu = LogisticRegression::fit(features, labels, 1e-3, 50, c10::kCPU);
  const LogisticRegression gpu = LogisticRegression::fit(features, labels, 1e-3, 50, kGpu);
  // Newton stops when its step is below 1e-10 (models/logistic_regression.cpp): rounding in
  // another order may cross that line one step earlier or later, which moves p by < 1e-10.
  CHECK(std::abs(gpu.iterations() - cpu.iterations()) <= 1);
  const at::Tensor p_cpu = cpu.probabilities(features);
  const at::Tensor p_gpu = gpu.probabilities(features);
  INFO("max |p_CUDA - p_CPU| = " << max_abs_difference(p_gpu, p_cpu));
  CHECK(max_abs_difference(p_gpu, p_cpu) < 1e-9);  // float64 Newton steps
  CHECK(gpu.accuracy(features, labels) == cpu.accuracy(features, labels));
}

TEST_CASE("CUDA: every mechanism perturbs a CUDA batch as it does the CPU's, within 1e-5", "[cuda]") {
  if (no_cuda()) return;
  static const MechanismRegistry registry = default_mechanism_registry();
  const at::Tensor x = test_directions(200, 48, 7);
  for (const char* yaml : {"{name: vmf_tangent, epsilon: 2, beta: 1}", "{name: vmf, epsilon: 200, beta: 1}",
                           "{name: gaussian, epsilon: 2, delta: 1.0e-5, clip_norm: 1}",
                           "{name: laplace, epsilon: 2, clip_norm: 1}",
                           "{name: npgaussian, epsilon: 2, delta: 1.0e-5, clip_norm: 1}"}) {
    INFO(yaml);
    const auto mechanism = make_mechanism(std::string(yaml), registry);
    const at::Tensor cpu = mechanism->perturb(x, {1, 0});
    const at::Tensor gpu = mechanism->perturb(x.to(kGpu), {1, 0});
    CHECK(gpu.device() == kGpu);
    CHECK(max_abs_difference(gpu, cpu) < 1e-5 * (1 + cpu.abs().max().item<double>()));
  }
}

TEST_CASE("CUDA: the language model's utility takes CUDA logits with the CPU's token ids", "[cuda]") {
  if (no_cuda()) return;
  // The inversion type's language-model columns: the ids stay on the CPU, the logits come from
  // the model's device. The perplexity's gather once met a CPU index on CUDA logits and failed
  // every row (index is on cpu, different from other tensors on cuda:0, wrapper_CUDA_gather).
  const auto model = load_language_model(stories260k_checkpoint(), kGpu);
  const at::Tensor ids = token_ids(model->vocab_size());
  const at::Tensor clean = model->forward_ids(ids);
  const at::Tensor noisy = model->forward_embeddings(model->embed(ids) + 0.01);
  REQUIRE(clean.device() == kGpu);
  const LanguageModelUtility gpu = compare_next_token_logits(ids, clean, noisy);
  const LanguageModelUtility cpu = compare_next_token_logits(ids, clean.cpu(), noisy.cpu());
  CHECK(gpu.perplexity_clean == Approx(cpu.perplexity_clean).epsilon(1e-6));
  CHECK(gpu.perplexity_perturbed == Approx(cpu.perplexity_perturbed).epsilon(1e-6));
  CHECK(gpu.next_token_agreement == cpu.next_token_agreement);
}

TEST_CASE("CUDA: configs/device/inversion_device.yaml runs with device=cuda", "[cuda]") {
  if (no_cuda()) return;
  // The whole inversion type on the GPU (KNN, the learned inverter, the language model's utility,
  // the sentiment classifier): every row must succeed, as it does with device=cpu.
  TempDir dir("embpriv_cuda_inversion");
  const Outcome o = run_binary(std::string("run ") + source_dir() + "/configs/device/inversion_device.yaml --out " + (dir / "cuda.h5") +
                               " --overwrite --no-plot -q device=cuda");
  INFO(o.output);
  CHECK(o.code == 0);
  CHECK(o.output.find("FAILED") == std::string::npos);
}
