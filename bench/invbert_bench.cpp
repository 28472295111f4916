// Throughput of InvBert's training (attacks/invbert.h) on the CPU against the same network,
// batch and optimiser in PyTorch eager (bench/invbert_peer.py): the real stories260K table
// (512 x 64), --tokens ids in sentences of 32, rows perturbed by N(0, 0.5^2) noise, width 128,
// 2 post-norm layers, 4 heads, feed-forward 256, a vocabulary head plus the tied decoder, Adam
// 1e-3, 32 sentences a step. --epochs epochs per timed run, best of --repeats after a warm-up.
// Prints one JSON line; with --dump it writes the table and the ids for the peer.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "attacks/invbert.h"
#include "bench/bench_timing.h"
#include "platform/allocator_settings.h"
#include "data/tables/data_paths.h"
#include "models/llama2c_checkpoint.h"

using namespace embpriv;

namespace {

void write(const std::string& dump, const std::string& name, const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  std::ofstream(dump + "/" + name, std::ios::binary).write(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  int repeats = 3, threads = 1;
  std::int64_t tokens = 16384, epochs = 1;
  std::string dump;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (key == "--threads") threads = std::atoi(argv[i + 1]);
    else if (key == "--tokens") tokens = std::atoll(argv[i + 1]);
    else if (key == "--epochs") epochs = std::atoll(argv[i + 1]);
    else if (key == "--dump") dump = argv[i + 1];
    else {
      std::cerr << "usage: invbert_bench [--tokens N] [--epochs E] [--repeats R] [--threads T] [--dump DIR]\n";
      return 2;
    }
  }
  at::set_num_threads(threads);
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
  InvBertOptions options;  // the defaults the inversion type trains with
  options.epochs = epochs;
  double loss = 0;
  const double seconds = best_seconds(repeats, [&] {
    loss = InvBert::train(text, table, perturb, at::Tensor(), options).final_training_loss();
  });
  std::cout << "{\"name\": \"invbert\", \"impl\": \"embpriv\", \"tokens\": " << tokens << ", \"epochs\": " << epochs
            << ", \"threads\": " << threads << ", \"seconds\": " << seconds
            << ", \"tokens_per_s\": " << static_cast<double>(tokens * epochs) / seconds << ", \"final_loss\": " << loss
            << "}" << std::endl;
  if (!dump.empty()) {
    write(dump, "invbert_table.f32", table);
    write(dump, "invbert_ids.i64", text.ids);
  }
  return 0;
}
