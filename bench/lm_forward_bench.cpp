// Throughput of embpriv's language-model forward pass from input embeddings
// (models/language_model.h) on the real stories260K model (llama2.c .bin) or a Hugging Face
// folder (bench/hf_forward_peer.py make writes a random ~100M Llama in bf16): B sequences of T
// tokens (seeded random ids), best of --repeats after a warm-up. Prints one JSON line with the
// peak resident memory; with --dump it writes the ids and the logits so that the peer (PyTorch
// eager, same weights: bench/lm_forward_peer.py, bench/hf_forward_peer.py) times the same work
// and checks it computes the same logits.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>

#include <sys/resource.h>

#include "platform/allocator_settings.h"
#include "data/tables/data_paths.h"
#include "models/language_model.h"

using namespace embpriv;

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  int repeats = 3, threads = 1;
  std::int64_t tokens = 2048, length = 256;
  std::string model_path = resolve_data_path("tinyllama/stories260K.bin"), dump, name = "stories260k";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (key == "--threads") threads = std::atoi(argv[i + 1]);
    else if (key == "--tokens") tokens = std::atoll(argv[i + 1]);
    else if (key == "--length") length = std::atoll(argv[i + 1]);
    else if (key == "--model") model_path = argv[i + 1];
    else if (key == "--dump") dump = argv[i + 1];
    else if (key == "--name") name = argv[i + 1];
    else {
      std::cerr << "usage: lm_forward_bench [--tokens N] [--length T] [--repeats R] [--threads T] [--model BIN|HF_FOLDER] [--name NAME] [--dump DIR]\n";
      return 2;
    }
  }
  at::set_num_threads(threads);
  const std::unique_ptr<LanguageModel> loaded = load_language_model(model_path);
  const LanguageModel& model = *loaded;
  const std::int64_t batch = std::max<std::int64_t>(1, tokens / length);
  at::manual_seed(1);
  const at::Tensor ids = at::randint(0, model.vocab_size(), {batch, length}, at::kLong);
  const at::Tensor embeddings = model.embed(ids);
  at::Tensor logits = model.forward_embeddings(embeddings);  // warm-up
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    logits = model.forward_embeddings(embeddings);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const double n = static_cast<double>(batch * length);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // ru_maxrss: KiB on Linux
  std::cout << "{\"name\": \"" << name << "\", \"impl\": \"embpriv\", \"batch\": " << batch << ", \"length\": " << length
            << ", \"threads\": " << threads << ", \"seconds\": " << best << ", \"tokens_per_s\": " << n / best
            << ", \"peak_rss_mib\": " << static_cast<double>(usage.ru_maxrss) / 1024.0 << "}" << std::endl;
  if (!dump.empty()) {
    std::ofstream(dump + "/lm_ids.i64", std::ios::binary)
        .write(static_cast<const char*>(ids.contiguous().data_ptr()), ids.numel() * 8);
    std::ofstream(dump + "/lm_logits.f32", std::ios::binary)
        .write(static_cast<const char*>(logits.contiguous().data_ptr()), logits.numel() * 4);
  }
  return 0;
}
