#include "accounting/pure_dp_composition.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace embpriv {
namespace {

void check(double epsilon, std::int64_t rounds) {
  EMBPRIV_CHECK(std::isfinite(epsilon) && epsilon > 0, "accountant: epsilon must be finite and > 0, got " << epsilon);
  EMBPRIV_CHECK(rounds >= 1, "accountant: rounds must be >= 1, got " << rounds);
}
void check_delta(double delta) {
  EMBPRIV_CHECK(delta > 0 && delta < 1, "accountant: delta must be in (0, 1), got " << delta);
}

}  // namespace

double basic_composition_epsilon(double epsilon, std::int64_t rounds) {
  check(epsilon, rounds);
  return static_cast<double>(rounds) * epsilon;
}

double advanced_composition_epsilon(double epsilon, std::int64_t rounds, double delta) {
  check(epsilon, rounds);
  check_delta(delta);
  const double t = static_cast<double>(rounds);
  // DRV 2010, Thm III.3: eps' = sqrt(2 T ln(1/delta')) eps + T eps (e^eps - 1).
  return std::sqrt(2 * t * std::log(1 / delta)) * epsilon + t * epsilon * std::expm1(epsilon);
}

double kairouz_composition_epsilon(double epsilon, std::int64_t rounds, double delta) {
  check(epsilon, rounds);
  check_delta(delta);
  const double t = static_cast<double>(rounds);
  // KOV 2015, Thm 3.4: the drift T eps (e^eps - 1) / (e^eps + 1) = T eps tanh(eps / 2).
  const double drift = t * epsilon * std::tanh(epsilon / 2);
  const double first = drift + epsilon * std::sqrt(2 * t * std::log(std::exp(1.0) + std::sqrt(t * epsilon * epsilon) / delta));
  const double second = drift + epsilon * std::sqrt(2 * t * std::log(1 / delta));
  return std::min({t * epsilon, first, second});
}

PureDpAccount compose_pure_dp(double epsilon, std::int64_t rounds, double delta) {
  check(epsilon, rounds);
  PureDpAccount account{basic_composition_epsilon(epsilon, rounds), "basic composition (delta = 0)"};
  if (delta == 0) return account;
  check_delta(delta);
  const double drv = advanced_composition_epsilon(epsilon, rounds, delta);
  const double kov = kairouz_composition_epsilon(epsilon, rounds, delta);
  if (drv < account.epsilon) account = {drv, "advanced composition (Dwork, Rothblum & Vadhan 2010)"};
  if (kov < account.epsilon) account = {kov, "advanced composition (Kairouz, Oh & Viswanath 2015, Thm 3.4)"};
  return account;
}

}  // namespace embpriv
