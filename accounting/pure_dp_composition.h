#pragma once
// Composition of T runs of an eps-DP mechanism (e.g. the Laplace mechanism): the total
// (eps_total, delta) after adaptive composition. docs/accounting.md.
#include <cstdint>
#include <string>

namespace embpriv {

// Basic composition: T eps, delta = 0 (Dwork & Roth 2014, Thm 3.16).
double basic_composition_epsilon(double epsilon, std::int64_t rounds);

// Advanced composition (Dwork, Rothblum & Vadhan 2010, Thm III.3; Dwork & Roth 2014, Thm 3.20,
// with delta = 0 per run): eps sqrt(2 T ln(1/delta)) + T eps (e^eps - 1), at total delta.
double advanced_composition_epsilon(double epsilon, std::int64_t rounds, double delta);

// Kairouz, Oh & Viswanath 2015, Thm 3.4 (eps-DP runs, total delta):
//   min{ T eps, T eps (e^eps - 1) / (e^eps + 1) + eps sqrt(2 T ln(e + sqrt(T eps^2) / delta)),
//        T eps (e^eps - 1) / (e^eps + 1) + eps sqrt(2 T ln(1 / delta)) }.
double kairouz_composition_epsilon(double epsilon, std::int64_t rounds, double delta);

struct PureDpAccount {
  double epsilon = 0;
  std::string method;
};

// The smallest of the bounds above (basic only when delta is 0).
PureDpAccount compose_pure_dp(double epsilon, std::int64_t rounds, double delta);

}  // namespace embpriv
