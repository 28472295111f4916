// Throughput of the five per-vector mechanisms (bench/README.md): N vectors of dimension d,
// each mechanism built from YAML through the default registry and timed on perturb(), best of
// --repeats runs after one warm-up run. Prints one JSON line per mechanism, plus two reference
// lines measured in the same process: `randn_floor` (at::randn(N, d), the floor of drawing the
// N*d normals alone with LibTorch's generator) and `embpriv_normals` (the same N*d normals drawn
// with embpriv's own per-row Rng, no mechanism around them).
//
// mechanisms_peer.py times the same mechanisms in PyTorch eager; run_mechanisms.sh runs both and
// mechanisms_table.py writes the comparison table.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "bench/common/bench_args.h"
#include "platform/allocator_settings.h"
#include "core/error.h"
#include "core/rng.h"
#include "mechanisms/gaussian.h"
#include "mechanisms/laplace.h"
#include "mechanisms/npgaussian.h"
#include "experiments/engine/mechanism_yaml.h"

namespace {

struct Options {
  std::int64_t n = 65536;
  std::int64_t d = 4096;
  int repeats = 3;
  int threads = 1;
  std::uint64_t seed = 20240601;
  std::vector<std::string> only;  // empty: every mechanism
};

Options parse(int argc, char** argv) {
  embpriv::BenchArgs args(argc, argv,
                          "usage: mechanisms_bench [--n N] [--d D] [--repeats R] [--threads T] [--seed S]"
                          " [--only name[,name...]]\n"
                          "  --n        vectors per batch (default 65536)\n"
                          "  --d        dimension (default 4096)\n"
                          "  --repeats  timed runs per mechanism after one warm-up; the best is kept (default 3)\n"
                          "  --threads  at::set_num_threads (default 1)\n"
                          "  --only     comma-separated subset of: vmf_tangent, vmf, gaussian, laplace, "
                          "npgaussian, randn_floor, embpriv_normals");
  Options o;
  o.n = args.integer("--n", o.n);
  o.d = args.integer("--d", o.d);
  o.repeats = args.count("--repeats", o.repeats);
  o.threads = args.count("--threads", o.threads);
  o.seed = static_cast<std::uint64_t>(args.integer("--seed", static_cast<std::int64_t>(o.seed)));
  std::stringstream list(args.text("--only", ""));
  for (std::string item; std::getline(list, item, ',');) {
    if (!item.empty()) o.only.push_back(item);
  }
  args.finish();
  if (o.n < 1 || o.d < 2) args.fail("need --n >= 1, --d >= 2");
  return o;
}

bool selected(const Options& o, const std::string& name) {
  return o.only.empty() || std::find(o.only.begin(), o.only.end(), name) != o.only.end();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU time of the whole process (all threads), in seconds.
double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timing {
  double seconds;       // best wall time
  double cpu_per_wall;  // process CPU time / wall time of that run: ~1 serial, ~T with T threads
};

// Best wall time of `repeats` calls after one untimed warm-up call. The result of each call is
// released before the next one starts, so at most one output batch is alive at a time.
Timing best_time(int repeats, const std::function<at::Tensor()>& run, at::Tensor* last) {
  *last = at::Tensor();
  run();  // warm-up: thread pool, ziggurat tables, allocator
  Timing best{std::numeric_limits<double>::infinity(), 0.0};
  for (int r = 0; r < repeats; ++r) {
    *last = at::Tensor();
    const double cpu_start = process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    at::Tensor y = run();
    const double seconds = seconds_since(start);
    const double cpu = process_cpu_seconds() - cpu_start;
    if (seconds < best.seconds) best = {seconds, cpu / seconds};
    *last = std::move(y);
  }
  return best;
}

// Inputs: N random directions (normalised Gaussian rows) with norms uniform in [0.5, 2], so the
// clipping of gaussian/laplace/npgaussian (C = 1 below) is active for part of the rows.
at::Tensor make_inputs(const Options& o) {
  at::Generator gen = at::detail::createCPUGenerator(o.seed);
  at::Tensor x = at::randn({o.n, o.d}, gen, at::kFloat);
  at::Tensor norms = at::empty({o.n, 1}, at::kFloat).uniform_(0.5, 2.0, gen);
  x.mul_(norms / x.norm(2, {1}, /*keepdim=*/true));
  return x;
}

// Sanity statistics over all rows, compared with the PyTorch peer by run_mechanisms.sh: mean
// cos(x, y) and mean ||y|| / ||x|| (in double, 4096 rows at a time to bound memory).
std::string stats_json(const at::Tensor& x, const at::Tensor& y) {
  if (!y.defined() || y.sizes() != x.sizes()) return "";
  const std::int64_t rows = x.size(0);
  double cosine_sum = 0, ratio_sum = 0;
  bool finite = true;
  for (std::int64_t begin = 0; begin < rows; begin += 4096) {
    const std::int64_t count = std::min<std::int64_t>(4096, rows - begin);
    const at::Tensor xs = x.narrow(0, begin, count).to(at::kDouble);
    const at::Tensor ys = y.narrow(0, begin, count).to(at::kDouble);
    const at::Tensor nx = xs.norm(2, {1});
    const at::Tensor ny = ys.norm(2, {1});
    cosine_sum += ((xs * ys).sum(1) / (nx * ny)).sum().item<double>();
    ratio_sum += (ny / nx).sum().item<double>();
    finite = finite && at::isfinite(ys).all().item<bool>();
  }
  std::ostringstream out;
  out << std::setprecision(8) << ", \"mean_cos\": " << cosine_sum / rows
      << ", \"mean_norm_ratio\": " << ratio_sum / rows
      << ", \"finite\": " << (finite ? "true" : "false");
  return out.str();
}

void print_line(const std::string& name, const Options& o, const Timing& t,
                const std::string& extra) {
  const double seconds = t.seconds;
  std::cout << std::setprecision(6) << "{\"name\": \"" << name << "\", \"impl\": \"embpriv\""
            << ", \"n\": " << o.n << ", \"d\": " << o.d << ", \"seconds\": " << seconds
            << ", \"vectors_per_s\": " << static_cast<double>(o.n) / seconds
            << ", \"threads\": " << at::get_num_threads() << ", \"repeats\": " << o.repeats
            << ", \"cpu_per_wall\": " << std::setprecision(3) << t.cpu_per_wall << extra << "}"
            << std::endl;
}

// The N*d normals drawn with embpriv's Rng exactly as the row kernels draw them (one generator
// per row, ziggurat normal, rounded to float), split over threads with at::parallel_for exactly
// as perturb() is (so it runs serially whenever perturb() does: see cpu_per_wall).
at::Tensor embpriv_normals(std::int64_t n, std::int64_t d, std::uint64_t seed) {
  at::Tensor out = at::empty({n, d}, at::kFloat);
  float* p = out.data_ptr<float>();
  at::parallel_for(0, n, 64, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      embpriv::Rng rng(seed, static_cast<std::uint64_t>(i));
      float* row = p + i * d;
      for (std::int64_t j = 0; j < d; ++j) row[j] = static_cast<float>(rng.normal());
    }
  });
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  embpriv::keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  const Options o = parse(argc, argv);
  at::set_num_threads(o.threads);
  try {
    const auto registry = embpriv::default_mechanism_registry();
    const at::Tensor x = make_inputs(o);
    const embpriv::RandomStream stream{embpriv::derive_seed(o.seed, 0, "mechanism"), 0};
    at::Tensor y;

    // The same parameters as mechanisms_peer.py.
    const std::vector<std::pair<std::string, std::string>> configs = {
        {"vmf_tangent", "{name: vmf_tangent, epsilon: 2, beta: 1}"},
        {"vmf", "{name: vmf, epsilon: 2, beta: 1}"},
        {"gaussian",
         "{name: gaussian, epsilon: 2, delta: 1.0e-5, clip_norm: 1, calibration: analytic}"},
        {"laplace", "{name: laplace, epsilon: 2, clip_norm: 1}"},
        {"npgaussian",
         "{name: npgaussian, epsilon: 2, delta: 1.0e-5, clip_norm: 1, calibration: analytic}"},
    };
    for (const auto& [name, yaml] : configs) {
      if (!selected(o, name)) continue;
      const std::unique_ptr<embpriv::Mechanism> mechanism = embpriv::make_mechanism(yaml, registry);
      const Timing seconds =
          best_time(o.repeats, [&] { return mechanism->perturb(x, stream); }, &y);
      std::ostringstream extra;
      extra << std::setprecision(17);
      // The noise scale, so the peer can check that it uses the same one.
      if (const auto* g = dynamic_cast<const embpriv::GaussianMechanism*>(mechanism.get())) {
        extra << ", \"sigma\": " << g->sigma();
      } else if (const auto* np = dynamic_cast<const embpriv::NormPreservingGaussianMechanism*>(
                     mechanism.get())) {
        extra << ", \"sigma\": " << np->sigma();
      } else if (const auto* l = dynamic_cast<const embpriv::LaplaceMechanism*>(mechanism.get())) {
        extra << ", \"scale\": " << l->scale();
      }
      extra << stats_json(x, y);
      print_line(name, o, seconds, extra.str());
      y = at::Tensor();
    }

    if (selected(o, "randn_floor")) {
      const Timing seconds =
          best_time(o.repeats, [&] { return at::randn({o.n, o.d}, at::kFloat); }, &y);
      print_line("randn_floor", o, seconds, "");
      y = at::Tensor();
    }
    if (selected(o, "embpriv_normals")) {
      const Timing seconds =
          best_time(o.repeats, [&] { return embpriv_normals(o.n, o.d, stream.seed); }, &y);
      print_line("embpriv_normals", o, seconds, "");
      y = at::Tensor();
    }
  } catch (const embpriv::Error& e) {
    std::cerr << "mechanisms_bench: " << e.what() << "\n";
    return e.exit_code();
  }
  return 0;
}
