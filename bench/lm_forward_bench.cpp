// Throughput of embpriv's language-model forward pass from input embeddings
// (models/llama2c_model.h) on the real stories260K model: B sequences of T tokens (seeded random
// ids), best of --repeats after a warm-up. Prints one JSON line; with --dump it writes the ids
// and the logits so that bench/lm_forward_peer.py (PyTorch eager, same weights) times the same
// work and checks it computes the same logits.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>

#include "core/allocator_settings.h"
#include "data/data_paths.h"
#include "models/llama2c_checkpoint.h"
#include "models/llama2c_model.h"

using namespace embpriv;

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (core/allocator_settings.h)
  int repeats = 3, threads = 1;
  std::int64_t tokens = 2048, length = 256;
  std::string model_path = resolve_data_path("tinyllama/stories260K.bin"), dump;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (key == "--threads") threads = std::atoi(argv[i + 1]);
    else if (key == "--tokens") tokens = std::atoll(argv[i + 1]);
    else if (key == "--length") length = std::atoll(argv[i + 1]);
    else if (key == "--model") model_path = argv[i + 1];
    else if (key == "--dump") dump = argv[i + 1];
    else {
      std::cerr << "usage: lm_forward_bench [--tokens N] [--length T] [--repeats R] [--threads T] [--model BIN] [--dump DIR]\n";
      return 2;
    }
  }
  at::set_num_threads(threads);
  const Llama2cModel model(load_llama2c_checkpoint(model_path));
  const std::int64_t batch = std::max<std::int64_t>(1, tokens / length);
  at::manual_seed(1);
  const at::Tensor ids = at::randint(0, model.config().vocab_size, {batch, length}, at::kLong);
  const at::Tensor embeddings = model.embed(ids);
  at::Tensor logits = model.forward_embeddings(embeddings);  // warm-up
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    logits = model.forward_embeddings(embeddings);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const double n = static_cast<double>(batch * length);
  std::cout << "{\"name\": \"stories260k\", \"impl\": \"embpriv\", \"batch\": " << batch << ", \"length\": " << length
            << ", \"threads\": " << threads << ", \"seconds\": " << best << ", \"tokens_per_s\": " << n / best << "}"
            << std::endl;
  if (!dump.empty()) {
    std::ofstream(dump + "/lm_ids.i64", std::ios::binary)
        .write(static_cast<const char*>(ids.contiguous().data_ptr()), ids.numel() * 8);
    std::ofstream(dump + "/lm_logits.f32", std::ios::binary)
        .write(static_cast<const char*>(logits.contiguous().data_ptr()), logits.numel() * 4);
  }
  return 0;
}
