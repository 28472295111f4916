// Throughput of embpriv's shadow-model training for membership inference (LiRA's shadows:
// models/logistic_regression.h, Newton's method with an L2 penalty) on --n sentence-feature
// rows of width --d drawn from a seeded logistic model, --models fits per timed run, best of
// --repeats after a warm-up. Prints one JSON line; with --dump it writes the features, labels
// and the first model's probabilities so that shadow_training_peer.py (PyTorch eager)
// fits the same data and checks it finds the same model.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <iostream>
#include <string>
#include <vector>

#include "bench/common/bench_args.h"
#include "bench/common/bench_dump.h"
#include "bench/common/bench_timing.h"
#include "platform/allocator_settings.h"
#include "models/logistic_regression.h"

using namespace embpriv;

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  BenchArgs args(argc, argv,
                 "usage: shadow_training_bench [--n N] [--d D] [--models M] [--repeats R] [--threads T] [--dump DIR]");
  const std::int64_t n = args.integer("--n", 2000), d = args.integer("--d", 100), models = args.integer("--models", 16);
  const int repeats = args.count("--repeats", 3), threads = args.count("--threads", 1);
  const std::string dump = args.text("--dump", "");
  args.finish();
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
  const double best = best_seconds(repeats, fit_all);
  std::cout << "{\"name\": \"logistic_" << n << "x" << d << "\", \"impl\": \"embpriv\", \"n\": " << n << ", \"d\": " << d
            << ", \"models\": " << models << ", \"threads\": " << threads << ", \"seconds\": " << best
            << ", \"models_per_s\": " << static_cast<double>(models) / best << "}" << std::endl;
  if (!dump.empty()) {
    write_tensor(dump, "shadow_features.f32", features);
    write_tensor(dump, "shadow_labels.i64", labels);
    write_tensor(dump, "shadow_rows.i64", at::stack(halves));
    write_tensor(dump, "shadow_first_probabilities.f64", first);
  }
  return 0;
}
