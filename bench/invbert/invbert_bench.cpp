// Throughput of InvBert's training (attacks/invbert.h) on the CPU against the same network,
// batch and optimiser in PyTorch eager (invbert_peer.py) on the inputs of the learned
// inversion's bench (bench/common/inversion_inputs.h: --tokens ids of stories260K), width 128,
// 2 post-norm layers, 4 heads, feed-forward 256, a vocabulary head plus the tied decoder, Adam
// 1e-3, 32 sentences a step. --epochs epochs per timed run, best of --repeats after a warm-up.
// Prints one JSON line; with --dump it writes the table and the ids for the peer.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <iostream>
#include <string>

#include "attacks/invbert.h"
#include "bench/common/bench_args.h"
#include "bench/common/bench_dump.h"
#include "bench/common/bench_timing.h"
#include "bench/common/inversion_inputs.h"
#include "platform/allocator_settings.h"

using namespace embpriv;

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  BenchArgs args(argc, argv,
                 "usage: invbert_bench [--tokens N] [--epochs E] [--repeats R] [--threads T] [--dump DIR]");
  const std::int64_t tokens = args.integer("--tokens", 16384), epochs = args.integer("--epochs", 1);
  const int repeats = args.count("--repeats", 3), threads = args.count("--threads", 1);
  const std::string dump = args.text("--dump", "");
  args.finish();
  at::set_num_threads(threads);
  const InversionInputs in = inversion_inputs(tokens);
  InvBertOptions options;  // the defaults the inversion type trains with
  options.epochs = epochs;
  double loss = 0;
  const double seconds = best_seconds(repeats, [&] {
    loss = InvBert::train(in.text, in.table, in.perturb, at::Tensor(), options).final_training_loss();
  });
  std::cout << "{\"name\": \"invbert\", \"impl\": \"embpriv\", \"tokens\": " << tokens << ", \"epochs\": " << epochs
            << ", \"threads\": " << threads << ", \"seconds\": " << seconds
            << ", \"tokens_per_s\": " << static_cast<double>(tokens * epochs) / seconds << ", \"final_loss\": " << loss
            << "}" << std::endl;
  if (!dump.empty()) {
    write_tensor(dump, "invbert_table.f32", in.table);
    write_tensor(dump, "invbert_ids.i64", in.text.ids);
  }
  return 0;
}
