// The PLD accountant (accounting/pld_accountant.h) next to the RDP accountant
// (accounting/renyi_dp.h) on the same cases in the same run, one thread: the DP-SGD settings of
// docs/accounting.md's table (up to 10^5 rounds) and the unsampled Gaussian. Goal: PLD at most
// 2 s a case (bench/README.md). Per case: both eps, the PLD bracket's width, both times (best of
// --repeats after one warm-up run, bench/common/bench_timing.h) and their ratio.
//
//   pld_accountant_bench [--repeats R] [--json FILE]
// prints a table; --json also writes one JSON line per case.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "accounting/pld_accountant.h"
#include "accounting/renyi_dp.h"
#include "bench/common/bench_args.h"
#include "bench/common/bench_timing.h"

namespace {

struct Case {
  const char* name;
  double sigma, q;
  std::int64_t rounds;
  double delta;
};

const Case kCases[] = {
    {"mnist_dpsgd", 1.1, 256.0 / 60000, 60 * 60000 / 256, 1e-5},
    {"sigma0.8_q0.01_T1e3", 0.8, 0.01, 1000, 1e-5},
    {"abadi_sigma4_q0.01_T1e4", 4.0, 0.01, 10000, 1e-5},
    {"sigma0.5_q0.001_T1e5", 0.5, 0.001, 100000, 1e-6},
    {"gaussian_sigma1.1_T1", 1.1, 1, 1, 1e-5},
    {"gaussian_sigma1_T100", 1.0, 1, 100, 1e-5},
    {"gaussian_sigma4_T1e4", 4.0, 1, 10000, 1e-5},
};

}  // namespace

int main(int argc, char** argv) {
  embpriv::BenchArgs args(argc, argv, "usage: pld_accountant_bench [--repeats R] [--json FILE]");
  const int repeats = args.count("--repeats", 3);
  const std::string json_path = args.text("--json", "");
  args.finish();
  std::ofstream json;
  if (!json_path.empty()) json.open(json_path);
  std::printf("%-26s %12s %12s %8s %10s %9s %9s %7s\n", "case", "pld_lower", "pld_upper", "width%", "rdp", "pld_s",
              "rdp_s", "pld/rdp");
  for (const Case& c : kCases) {
    embpriv::PldAccount pld;
    embpriv::RdpAccount rdp;
    const double pld_s = embpriv::best_seconds(repeats, [&] {
      pld = embpriv::subsampled_gaussian_pld_account(c.sigma, c.q, c.rounds, c.delta);
    });
    const double rdp_s = embpriv::best_seconds(repeats, [&] {
      rdp = c.q == 1 ? embpriv::gaussian_rdp_account(c.sigma, c.rounds, c.delta)
                     : embpriv::subsampled_gaussian_rdp_account(c.sigma, c.q, c.rounds, c.delta);
    });
    const double width = 100 * (pld.epsilon - pld.epsilon_lower) / pld.epsilon;
    std::printf("%-26s %12.6f %12.6f %8.3f %10.5f %9.4f %9.4f %7.1f\n", c.name, pld.epsilon_lower, pld.epsilon, width,
                rdp.epsilon, pld_s, rdp_s, pld_s / rdp_s);
    if (json) {
      json << "{\"case\": \"" << c.name << "\", \"sigma\": " << c.sigma << ", \"q\": " << c.q
           << ", \"rounds\": " << c.rounds << ", \"delta\": " << c.delta << ", \"pld_lower\": " << pld.epsilon_lower
           << ", \"pld_upper\": " << pld.epsilon << ", \"width_percent\": " << width << ", \"rdp\": " << rdp.epsilon
           << ", \"pld_seconds\": " << pld_s << ", \"rdp_seconds\": " << rdp_s << ", \"grid_points\": " << pld.grid_points
           << ", \"step\": " << pld.step << "}\n";
    }
  }
  return 0;
}
