// Throughput and peak memory of embpriv's encoder forward pass (models/hf_encoder_model.h) on a
// random BERT-base-sized model: vocabulary 30,522, hidden 768, 12 layers of 12 heads,
// intermediate 3,072, float32 (models/hf_encoder_init.h's random_hf_encoder, written as a
// Hugging Face folder). `--make FOLDER` writes the folder; `--model FOLDER` times B texts of T
// tokens (seeded random ids, no padding), the last layer's hidden states, best of --repeats
// after a warm-up, and prints one JSON line with the peak resident memory and the file's size;
// with --dump it writes the ids and the hidden states so that the peer (bench/
// encoder_forward_peer.py, PyTorch eager on the same weights) times the same work and checks it
// computes the same states.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <filesystem>
#include <iostream>
#include <string>

#include "bench/common/bench_args.h"
#include "bench/common/bench_dump.h"
#include "bench/common/bench_timing.h"
#include "platform/allocator_settings.h"
#include "models/encoder_model.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_init.h"

using namespace embpriv;

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  BenchArgs args(argc, argv,
                 "usage: encoder_forward_bench --make FOLDER | --model FOLDER [--batch B] [--length T] [--repeats R] "
                 "[--threads T] [--dump DIR]");
  const std::int64_t batch = args.integer("--batch", 8), length = args.integer("--length", 128);
  const int repeats = args.count("--repeats", 3), threads = args.count("--threads", 1);
  const std::string model_path = args.text("--model", ""), make = args.text("--make", ""), dump = args.text("--dump", "");
  args.finish();
  if (!make.empty()) {
    // bert-base-uncased's sizes (its config.json).
    const HfEncoderConfig c = hf_encoder_config_of_sizes(
        "bert", {/*vocab*/ 30522, /*hidden*/ 768, /*feedforward*/ 3072, /*layers*/ 12, /*heads*/ 12, /*max_positions*/ 512});
    save_hf_encoder(random_hf_encoder(c, 1), make);
    std::cout << "wrote " << make << std::endl;
    return 0;
  }
  if (model_path.empty()) args.fail("--make FOLDER or --model FOLDER is needed");
  at::set_num_threads(threads);
  const std::unique_ptr<EncoderModel> model = load_encoder_model(model_path);
  at::manual_seed(1);
  const at::Tensor ids = at::randint(1, model->vocab_size(), {batch, length}, at::kLong);
  at::Tensor hidden;
  const double best = best_seconds(repeats, [&] { hidden = model->hidden_states_of_ids(ids); });
  const double n = static_cast<double>(batch * length);
  const double file_mib =
      static_cast<double>(std::filesystem::file_size(model_path + "/model.safetensors")) / (1024.0 * 1024.0);
  std::cout << "{\"name\": \"bert_base_random\", \"impl\": \"embpriv\", \"batch\": " << batch << ", \"length\": "
            << length << ", \"threads\": " << threads << ", \"seconds\": " << best << ", \"tokens_per_s\": " << n / best
            << ", \"peak_rss_mib\": " << peak_rss_mib() << ", \"file_mib\": " << file_mib
            << "}" << std::endl;
  if (!dump.empty()) {
    write_tensor(dump, "encoder_ids.i64", ids);
    write_tensor(dump, "encoder_hidden.f32", hidden);
  }
  return 0;
}
