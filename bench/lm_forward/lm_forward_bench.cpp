// Throughput of embpriv's language-model forward pass from input embeddings
// (models/language_model.h) on the real stories260K model (llama2.c .bin) or a Hugging Face
// folder (hf_forward_peer.py make writes a random ~100M Llama in bf16): B sequences of T
// tokens (seeded random ids), best of --repeats after a warm-up. Prints one JSON line with the
// peak resident memory; with --dump it writes the ids and the logits so that the peer (PyTorch
// eager, same weights: lm_forward_peer.py, hf_forward_peer.py) times the same work
// and checks it computes the same logits. --device cuda runs both sides on the GPU
// (scripts/device/check.sh); each timed pass ends when its last logit has reached the host.
// --compute bfloat16 runs a Hugging Face folder in bf16 (models/hf_decoder_model.h); its peer is
// hf_forward_peer.py time --compute bfloat16.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "bench/common/bench_args.h"
#include "bench/common/bench_dump.h"
#include "bench/common/bench_timing.h"
#include "platform/allocator_settings.h"
#include "data/tables/data_paths.h"
#include "models/language_model.h"

using namespace embpriv;

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  BenchArgs args(argc, argv,
                 "usage: lm_forward_bench [--tokens N] [--length T] [--repeats R] [--threads T] [--model BIN|HF_FOLDER] "
                 "[--name NAME] [--dump DIR] [--device cpu|cuda] [--compute float32|bfloat16]");
  const std::int64_t tokens = args.integer("--tokens", 2048), length = args.integer("--length", 256);
  const int repeats = args.count("--repeats", 3), threads = args.count("--threads", 1);
  std::string model_path = args.text("--model", "");
  if (model_path.empty()) model_path = resolve_data_path("tinyllama/stories260K.bin");
  const std::string name = args.text("--name", "stories260k"), dump = args.text("--dump", "");
  const std::string device_name = args.text("--device", "cpu");
  const std::string compute = args.text("--compute", "float32");
  args.finish();
  if (device_name != "cpu" && device_name != "cuda") {
    std::cerr << "lm_forward_bench: --device must be cpu or cuda, got '" << device_name << "'\n";
    return 2;
  }
  if (device_name == "cuda" && !at::hasCUDA()) {
    std::cerr << "lm_forward_bench: --device cuda, but this LibTorch sees no CUDA device\n";
    return 2;
  }
  const c10::Device device = device_name == "cuda" ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  at::set_num_threads(threads);
  const std::unique_ptr<LanguageModel> loaded = load_language_model(model_path, device, compute_dtype_named(compute));
  const LanguageModel& model = *loaded;
  const std::int64_t batch = std::max<std::int64_t>(1, tokens / length);
  at::manual_seed(1);
  const at::Tensor ids = at::randint(0, model.vocab_size(), {batch, length}, at::kLong);
  const at::Tensor embeddings = model.embed(ids.to(device));
  at::Tensor logits;
  const double best = best_seconds(repeats, [&] {
    logits = model.forward_embeddings(embeddings);
    // On CUDA the kernels run asynchronously: reading the last logit waits for all of them.
    if (device.is_cuda()) (void)logits.reshape(-1)[-1].item<float>();
  });
  const double n = static_cast<double>(batch * length);
  std::cout << "{\"name\": \"" << name << "\", \"impl\": \"embpriv\", \"batch\": " << batch << ", \"length\": " << length
            << ", \"threads\": " << threads << ", \"device\": \"" << device_name << "\", \"compute\": \"" << compute
            << "\", \"seconds\": " << best << ", \"tokens_per_s\": " << n / best
            << ", \"peak_rss_mib\": " << peak_rss_mib() << "}" << std::endl;
  if (!dump.empty()) {
    write_tensor(dump, "lm_ids.i64", ids);
    write_tensor(dump, "lm_logits.f32", logits.cpu());
  }
  return 0;
}
