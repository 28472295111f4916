// Throughput of embpriv's two LibTorch training paths on the CPU, each against the same model,
// batch and optimiser in PyTorch eager (bench/training_peer.py):
//   learned_inversion  LearnedInverter::train (attacks/learned_inversion.h) on the real
//                      stories260K table (512 x 64), window 2, hidden 256, batch 512, Adam 2e-3,
//                      --tokens ids in sentences of 32, rows perturbed by N(0, 0.5^2) noise.
//   privateai_client   TextClassifier::train (models/text_classifier.h), a PrivateAI client's
//                      local training: GloVe rows (the 5,000 most frequent words, d = 100), one
//                      post-norm Transformer layer, 4 heads, feed-forward 128, batch 32,
//                      Adam 1e-3, --units units of 8-32 tokens.
// --epochs epochs per timed run, best of --repeats after a warm-up. Prints one JSON line per
// case. With --dump it writes both cases' inputs, and the classifier's initial shared parameters
// and its probabilities before training, so that the peer trains on the same data and can check
// it builds the same network.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>

#include "attacks/learned_inversion.h"
#include "bench/bench_timing.h"
#include "platform/allocator_settings.h"
#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "models/llama2c_checkpoint.h"
#include "models/text_classifier.h"

using namespace embpriv;

namespace {

void write(const std::string& dump, const std::string& name, const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  std::ofstream(dump + "/" + name, std::ios::binary).write(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

void learned_inversion(std::int64_t tokens, std::int64_t epochs, int repeats, int threads, const std::string& dump) {
  const at::Tensor table = load_llama2c_checkpoint(resolve_data_path(shared_data_dir() + "/tinyllama/stories260K.bin"))
                               .token_embedding.to(at::kFloat);
  at::manual_seed(2);
  TokenSequences text;
  text.ids = at::randint(0, table.size(0), {tokens}, at::kLong);
  for (std::int64_t b = 0; b < tokens; b += 32) {
    text.spans.emplace_back(static_cast<std::size_t>(b), static_cast<std::size_t>(std::min(tokens, b + 32)));
  }
  const RowPerturber perturb = [](const at::Tensor& rows, std::uint64_t seed) {
    at::Generator generator = at::detail::createCPUGenerator(seed);
    return rows + 0.5 * at::randn(rows.sizes(), generator);
  };
  LearnedInversionOptions options;
  options.epochs = epochs;
  double loss = 0;
  const double seconds = best_seconds(repeats, [&] {
    loss = LearnedInverter::train(text, table, perturb, at::Tensor(), options).final_training_loss();
  });
  std::cout << "{\"name\": \"learned_inversion\", \"impl\": \"embpriv\", \"tokens\": " << tokens
            << ", \"epochs\": " << epochs << ", \"threads\": " << threads << ", \"seconds\": " << seconds
            << ", \"tokens_per_s\": " << static_cast<double>(tokens * epochs) / seconds
            << ", \"final_loss\": " << loss << "}" << std::endl;
  if (!dump.empty()) {
    write(dump, "inversion_table.f32", table);
    write(dump, "inversion_ids.i64", text.ids);
  }
}

void privateai_client(std::int64_t units, std::int64_t epochs, int repeats, int threads, const std::string& dump) {
  const at::Tensor glove = load_cached_glove(resolve_data_path(kGloveJson)).first(5000).vectors().to(at::kFloat);
  at::manual_seed(3);
  const at::Tensor lengths = at::randint(8, 33, {units, 1}, at::kLong);
  const at::Tensor ids =
      at::randint(2, glove.size(0), {units, 32}, at::kLong) * (at::arange(32, at::kLong).unsqueeze(0) < lengths);
  const at::Tensor targets = at::randint(0, 2, {units}, at::kLong).to(at::kFloat);
  const TextClassifierOptions model_options;  // PrivateAI's defaults: 1 layer, 4 heads, 128
  TrainOptions train;
  train.epochs = epochs;
  train.learning_rate = 1e-3;
  const TextClassifier initial(glove, model_options);
  double loss = 0;
  const double seconds = best_seconds(repeats, [&] {
    TextClassifier client = initial.clone();
    loss = client.train(ids, targets, train, 7);
  });
  std::cout << "{\"name\": \"privateai_client\", \"impl\": \"embpriv\", \"units\": " << units
            << ", \"epochs\": " << epochs << ", \"threads\": " << threads << ", \"seconds\": " << seconds
            << ", \"units_per_s\": " << static_cast<double>(units * epochs) / seconds
            << ", \"parameters\": " << initial.shared_size() << ", \"final_loss\": " << loss << "}" << std::endl;
  if (!dump.empty()) {
    write(dump, "client_glove.f32", glove);
    write(dump, "client_ids.i64", ids);
    write(dump, "client_targets.f32", targets);
    write(dump, "client_initial.f32", initial.shared_parameters());
    write(dump, "client_initial_probabilities.f64", initial.probabilities(ids));
  }
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  int repeats = 3, threads = 1;
  std::int64_t tokens = 32768, units = 2000, epochs = 2;
  std::string dump;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (key == "--threads") threads = std::atoi(argv[i + 1]);
    else if (key == "--tokens") tokens = std::atoll(argv[i + 1]);
    else if (key == "--units") units = std::atoll(argv[i + 1]);
    else if (key == "--epochs") epochs = std::atoll(argv[i + 1]);
    else if (key == "--dump") dump = argv[i + 1];
    else {
      std::cerr << "usage: training_bench [--tokens N] [--units U] [--epochs E] [--repeats R] [--threads T] [--dump DIR]\n";
      return 2;
    }
  }
  at::set_num_threads(threads);
  learned_inversion(tokens, epochs, repeats, threads, dump);
  privateai_client(units, epochs, repeats, threads, dump);
  return 0;
}
