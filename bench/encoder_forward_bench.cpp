// Throughput and peak memory of embpriv's encoder forward pass (models/hf_encoder_model.h) on a
// random BERT-base-sized model: vocabulary 30,522, hidden 768, 12 layers of 12 heads,
// intermediate 3,072, float32 (models/encoder_training.h's random_hf_encoder, written as a
// Hugging Face folder). `--make FOLDER` writes the folder; `--model FOLDER` times B texts of T
// tokens (seeded random ids, no padding), the last layer's hidden states, best of --repeats
// after a warm-up, and prints one JSON line with the peak resident memory and the file's size;
// with --dump it writes the ids and the hidden states so that the peer (bench/
// encoder_forward_peer.py, PyTorch eager on the same weights) times the same work and checks it
// computes the same states.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <sys/resource.h>

#include "platform/allocator_settings.h"
#include "models/encoder_model.h"
#include "models/encoder_training.h"

using namespace embpriv;

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  int repeats = 3, threads = 1;
  std::int64_t batch = 8, length = 128;
  std::string model_path, make, dump;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (key == "--threads") threads = std::atoi(argv[i + 1]);
    else if (key == "--batch") batch = std::atoll(argv[i + 1]);
    else if (key == "--length") length = std::atoll(argv[i + 1]);
    else if (key == "--model") model_path = argv[i + 1];
    else if (key == "--make") make = argv[i + 1];
    else if (key == "--dump") dump = argv[i + 1];
    else {
      std::cerr << "usage: encoder_forward_bench --make FOLDER | --model FOLDER [--batch B] [--length T] [--repeats R] "
                   "[--threads T] [--dump DIR]\n";
      return 2;
    }
  }
  if (!make.empty()) {
    HfEncoderConfig c;
    c.model_type = "bert";
    c.vocab_size = 30522;
    c.hidden_size = 768;
    c.intermediate_size = 3072;
    c.num_hidden_layers = 12;
    c.num_attention_heads = 12;
    save_hf_encoder(random_hf_encoder(c, 1), make);
    std::cout << "wrote " << make << std::endl;
    return 0;
  }
  if (model_path.empty()) {
    std::cerr << "encoder_forward_bench: --make FOLDER or --model FOLDER is needed\n";
    return 2;
  }
  at::set_num_threads(threads);
  const std::unique_ptr<EncoderModel> model = load_encoder_model(model_path);
  at::manual_seed(1);
  const at::Tensor ids = at::randint(1, model->vocab_size(), {batch, length}, at::kLong);
  at::Tensor hidden = model->hidden_states_of_ids(ids);  // warm-up
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    hidden = model->hidden_states_of_ids(ids);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  const double n = static_cast<double>(batch * length);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);  // ru_maxrss: KiB on Linux
  const double file_mib =
      static_cast<double>(std::filesystem::file_size(model_path + "/model.safetensors")) / (1024.0 * 1024.0);
  std::cout << "{\"name\": \"bert_base_random\", \"impl\": \"embpriv\", \"batch\": " << batch << ", \"length\": "
            << length << ", \"threads\": " << threads << ", \"seconds\": " << best << ", \"tokens_per_s\": " << n / best
            << ", \"peak_rss_mib\": " << static_cast<double>(usage.ru_maxrss) / 1024.0 << ", \"file_mib\": " << file_mib
            << "}" << std::endl;
  if (!dump.empty()) {
    std::ofstream(dump + "/encoder_ids.i64", std::ios::binary)
        .write(static_cast<const char*>(ids.contiguous().data_ptr()), ids.numel() * 8);
    std::ofstream(dump + "/encoder_hidden.f32", std::ios::binary)
        .write(static_cast<const char*>(hidden.contiguous().data_ptr()), hidden.numel() * 4);
  }
  return 0;
}
