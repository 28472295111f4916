// Throughput of embpriv's shadow-model training for membership inference (LiRA's shadows:
// models/logistic_regression.h, Newton's method with an L2 penalty) on --n sentence-feature
// rows of width --d drawn from a seeded logistic model, --models fits per timed run, best of
// --repeats after a warm-up. Prints one JSON line; with --dump it writes the features, labels
// and the first model's probabilities so that bench/shadow_training_peer.py (PyTorch eager)
// fits the same data and checks it finds the same model.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "platform/allocator_settings.h"
#include "models/logistic_regression.h"

using namespace embpriv;

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  int repeats = 3, threads = 1;
  std::int64_t n = 2000, d = 100, models = 16;
  std::string dump;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (key == "--threads") threads = std::atoi(argv[i + 1]);
    else if (key == "--n") n = std::atoll(argv[i + 1]);
    else if (key == "--d") d = std::atoll(argv[i + 1]);
    else if (key == "--models") models = std::atoll(argv[i + 1]);
    else if (key == "--dump") dump = argv[i + 1];
    else {
      std::cerr << "usage: shadow_training_bench [--n N] [--d D] [--models M] [--repeats R] [--threads T] [--dump DIR]\n";
      return 2;
    }
  }
  at::set_num_threads(threads);
  at::manual_seed(1);
  const at::Tensor features = at::randn({n, d});
  const at::Tensor labels = at::bernoulli(at::sigmoid(at::matmul(features, at::randn({d})) / 3)).to(at::kLong);
  // Each shadow trains on its own random half, as LiRA's do.
  std::vector<at::Tensor> halves;
  for (std::int64_t m = 0; m < models; ++m) halves.push_back(at::randperm(n, at::kLong).narrow(0, 0, n / 2));
  at::Tensor first;
  const auto fit_all = [&] {
    for (std::int64_t m = 0; m < models; ++m) {
      const at::Tensor rows = halves[static_cast<std::size_t>(m)];
      const LogisticRegression model = LogisticRegression::fit(features.index_select(0, rows), labels.index_select(0, rows));
      if (m == 0) first = model.probabilities(features);
    }
  };
  fit_all();  // warm-up
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    fit_all();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::cout << "{\"name\": \"logistic_" << n << "x" << d << "\", \"impl\": \"embpriv\", \"n\": " << n << ", \"d\": " << d
            << ", \"models\": " << models << ", \"threads\": " << threads << ", \"seconds\": " << best
            << ", \"models_per_s\": " << static_cast<double>(models) / best << "}" << std::endl;
  if (!dump.empty()) {
    const auto write = [&](const std::string& name, const at::Tensor& t) {
      const at::Tensor c = t.contiguous();
      std::ofstream(dump + "/" + name, std::ios::binary).write(static_cast<const char*>(c.data_ptr()), c.nbytes());
    };
    write("shadow_features.f32", features);
    write("shadow_labels.i64", labels);
    write("shadow_rows.i64", at::stack(halves));
    write("shadow_first_probabilities.f64", first);
  }
  return 0;
}
