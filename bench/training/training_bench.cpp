// Throughput of embpriv's two LibTorch training paths on the CPU, each against the same model,
// batch and optimiser in PyTorch eager (training_peer.py):
//   learned_inversion  LearnedInverter::train (attacks/learned_inversion.h), window 2, hidden
//                      256, batch 512, Adam 2e-3, on bench/common/inversion_inputs.h: the real
//                      stories260K table (512 x 64), --tokens ids in sentences of 32, rows
//                      perturbed by N(0, 0.5^2) noise.
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

#include <iostream>
#include <string>

#include "attacks/learned_inversion.h"
#include "bench/common/bench_args.h"
#include "bench/common/bench_dump.h"
#include "bench/common/bench_timing.h"
#include "bench/common/inversion_inputs.h"
#include "platform/allocator_settings.h"
#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "models/text_classifier.h"

using namespace embpriv;

namespace {

void learned_inversion(std::int64_t tokens, std::int64_t epochs, int repeats, int threads, const std::string& dump) {
  const InversionInputs in = inversion_inputs(tokens);
  LearnedInversionOptions options;
  options.epochs = epochs;
  double loss = 0;
  const double seconds = best_seconds(repeats, [&] {
    loss = LearnedInverter::train(in.text, in.table, in.perturb, at::Tensor(), options).final_training_loss();
  });
  std::cout << "{\"name\": \"learned_inversion\", \"impl\": \"embpriv\", \"tokens\": " << tokens
            << ", \"epochs\": " << epochs << ", \"threads\": " << threads << ", \"seconds\": " << seconds
            << ", \"tokens_per_s\": " << static_cast<double>(tokens * epochs) / seconds
            << ", \"final_loss\": " << loss << "}" << std::endl;
  if (!dump.empty()) {
    write_tensor(dump, "inversion_table.f32", in.table);
    write_tensor(dump, "inversion_ids.i64", in.text.ids);
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
    write_tensor(dump, "client_glove.f32", glove);
    write_tensor(dump, "client_ids.i64", ids);
    write_tensor(dump, "client_targets.f32", targets);
    write_tensor(dump, "client_initial.f32", initial.shared_parameters());
    write_tensor(dump, "client_initial_probabilities.f64", initial.probabilities(ids));
  }
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  BenchArgs args(argc, argv,
                 "usage: training_bench [--tokens N] [--units U] [--epochs E] [--repeats R] [--threads T] [--dump DIR]");
  const std::int64_t tokens = args.integer("--tokens", 32768), units = args.integer("--units", 2000),
                     epochs = args.integer("--epochs", 2);
  const int repeats = args.count("--repeats", 3), threads = args.count("--threads", 1);
  const std::string dump = args.text("--dump", "");
  args.finish();
  at::set_num_threads(threads);
  learned_inversion(tokens, epochs, repeats, threads, dump);
  privateai_client(units, epochs, repeats, threads, dump);
  return 0;
}
