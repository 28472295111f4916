#include "accounting/renyi_dp.h"

#include <boost/math/tools/minima.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace embpriv {
namespace {

void check_noise_multiplier(double sigma) {
  EMBPRIV_CHECK(std::isfinite(sigma) && sigma > 0, "accountant: sigma must be finite and > 0, got " << sigma);
}
void check_rounds(std::int64_t rounds) {
  EMBPRIV_CHECK(rounds >= 1, "accountant: rounds must be >= 1, got " << rounds);
}
void check_delta(double delta) {
  EMBPRIV_CHECK(delta > 0 && delta < 1, "accountant: delta must be in (0, 1), got " << delta);
}
void check_sampling_rate(double q) {
  EMBPRIV_CHECK(q > 0 && q <= 1, "accountant: the sampling rate must be in (0, 1], got " << q);
}

// log(e^a + e^b), exact when either is -inf.
double log_add(double a, double b) {
  if (a == -std::numeric_limits<double>::infinity()) return b;
  if (b == -std::numeric_limits<double>::infinity()) return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

// log C(n, k) through lgamma (exact enough for n <= 512: relative error ~1e-15).
double log_binomial(std::int64_t n, std::int64_t k) {
  return std::lgamma(static_cast<double>(n + 1)) - std::lgamma(static_cast<double>(k + 1)) -
         std::lgamma(static_cast<double>(n - k + 1));
}

// log(e^a - e^b) for a >= b (a difference of two sums of positive terms).
double log_sub(double a, double b) {
  if (b == -std::numeric_limits<double>::infinity()) return a;
  EMBPRIV_ASSERT(a >= b, "accountant: the series' negative part exceeds its positive part");
  return a + std::log(-std::expm1(b - a));
}

// log erfc(x), accurate where erfc underflows: for x >= 25 the asymptotic expansion
// erfc(x) = e^(-x^2) / (x sqrt(pi)) (1 - 1/(2x^2) + 3/(4x^4) - 15/(8x^6) + ...)
// (Abramowitz & Stegun 7.1.23; the next term is below 1e-10 there).
double log_erfc(double x) {
  if (x < 25) return std::log(std::erfc(x));
  const double u = 1 / (2 * x * x);
  return -x * x - std::log(x) - 0.5 * std::log(M_PI) + std::log1p(-u + 3 * u * u - 15 * u * u * u);
}

}  // namespace

double gaussian_rdp(double alpha, double noise_multiplier) {
  check_noise_multiplier(noise_multiplier);
  EMBPRIV_CHECK(alpha > 1 && std::isfinite(alpha), "accountant: the RDP order must be > 1, got " << alpha);
  return alpha / (2 * noise_multiplier * noise_multiplier);  // Mironov 2017, Prop. 7 (Delta2 = 1)
}

double subsampled_gaussian_rdp(std::int64_t alpha, double sampling_rate, double noise_multiplier) {
  check_noise_multiplier(noise_multiplier);
  check_sampling_rate(sampling_rate);
  EMBPRIV_CHECK(alpha >= 2, "accountant: the integer RDP order must be >= 2, got " << alpha);
  if (sampling_rate == 1) return gaussian_rdp(static_cast<double>(alpha), noise_multiplier);
  const double q = sampling_rate, two_var = 2 * noise_multiplier * noise_multiplier;
  // MTZ 2019, Sec. 3.3: A_alpha = sum_k C(alpha, k) (1 - q)^(alpha - k) q^k e^((k^2 - k) / (2 sigma^2)).
  double log_a = -std::numeric_limits<double>::infinity();
  for (std::int64_t k = 0; k <= alpha; ++k) {
    const double kd = static_cast<double>(k);
    const double term = log_binomial(alpha, k) + static_cast<double>(alpha - k) * std::log1p(-q) + kd * std::log(q) +
                        (kd * kd - kd) / two_var;
    log_a = log_add(log_a, term);
  }
  return log_a / static_cast<double>(alpha - 1);
}

double subsampled_gaussian_rdp_real(double alpha, double sampling_rate, double noise_multiplier) {
  check_noise_multiplier(noise_multiplier);
  check_sampling_rate(sampling_rate);
  EMBPRIV_CHECK(alpha > 1 && std::isfinite(alpha), "accountant: the RDP order must be > 1, got " << alpha);
  if (sampling_rate == 1) return gaussian_rdp(alpha, noise_multiplier);
  const double a = std::floor(alpha);
  if (a == alpha) return subsampled_gaussian_rdp(static_cast<std::int64_t>(alpha), sampling_rate, noise_multiplier);
  const double q = sampling_rate, sigma = noise_multiplier, two_var = 2 * sigma * sigma;
  const double minus_inf = -std::numeric_limits<double>::infinity();
  // MTZ 2019, Sec. 3.3: z0 = sigma^2 ln(1/q - 1) + 1/2 splits the integral of
  // E_{z ~ N(0, sigma^2)}[((1 - q) + q e^((2z - 1) / (2 sigma^2)))^alpha] into two binomial
  // series, each term with its Gaussian tail:
  //   A_1 = sum_i C(alpha, i) (1 - q)^(alpha - i) q^i e^((i^2 - i) / (2 sigma^2)) erfc((i - z0) / (sqrt 2 sigma)) / 2
  //   A_2 = sum_i C(alpha, i) q^(alpha - i) (1 - q)^i e^((j^2 - j) / (2 sigma^2)) erfc((z0 - j) / (sqrt 2 sigma)) / 2,
  // j = alpha - i. C(alpha, i) changes sign past i = alpha: positive and negative terms are summed apart.
  const double z0 = sigma * sigma * std::log(1 / q - 1) + 0.5;
  double positive[2] = {minus_inf, minus_inf}, negative[2] = {minus_inf, minus_inf};
  double log_coef = 0;  // log |C(alpha, 0)|
  int sign = 1;
  for (int i = 0;; ++i) {
    const double id = i, j = alpha - id;
    const double log_s0 = log_coef + id * std::log(q) + j * std::log1p(-q) + (id * id - id) / two_var +
                          std::log(0.5) + log_erfc((id - z0) / (std::sqrt(2.0) * sigma));
    const double log_s1 = log_coef + j * std::log(q) + id * std::log1p(-q) + (j * j - j) / two_var +
                          std::log(0.5) + log_erfc((z0 - j) / (std::sqrt(2.0) * sigma));
    double* sums = sign > 0 ? positive : negative;
    sums[0] = log_add(sums[0], log_s0);
    sums[1] = log_add(sums[1], log_s1);
    if (std::max(log_s0, log_s1) < -30 && id > alpha) break;
    EMBPRIV_ASSERT(i < 100000, "accountant: the fractional-order series did not converge (alpha " << alpha << ")");
    // C(alpha, i + 1) = C(alpha, i) (alpha - i) / (i + 1).
    log_coef += std::log(std::abs(alpha - id)) - std::log(id + 1);
    if (alpha - id < 0) sign = -sign;
  }
  const double log_a = log_add(log_sub(positive[0], negative[0]), log_sub(positive[1], negative[1]));
  return log_a / (alpha - 1);
}

double rdp_to_dp_epsilon(double alpha, double rdp, double delta) {
  check_delta(delta);
  EMBPRIV_CHECK(alpha > 1, "accountant: the RDP order must be > 1, got " << alpha);
  // Balle et al. 2020, Thm 21 (CKS 2020, Prop. 12).
  const double eps = rdp + std::log1p(-1 / alpha) - (std::log(delta) + std::log(alpha)) / (alpha - 1);
  return std::max(0.0, eps);
}

double rdp_to_dp_epsilon_classic(double alpha, double rdp, double delta) {
  check_delta(delta);
  EMBPRIV_CHECK(alpha > 1, "accountant: the RDP order must be > 1, got " << alpha);
  return std::max(0.0, rdp + std::log(1 / delta) / (alpha - 1));  // Mironov 2017, Prop. 3
}

RdpAccount gaussian_rdp_account(double noise_multiplier, std::int64_t rounds, double delta) {
  check_noise_multiplier(noise_multiplier);
  check_rounds(rounds);
  check_delta(delta);
  const double per_order = static_cast<double>(rounds) / (2 * noise_multiplier * noise_multiplier);
  // eps(alpha) = alpha T / (2 sigma^2) + log(1 - 1/alpha) - (log delta + log alpha) / (alpha - 1),
  // one interior minimum over alpha > 1: found by Brent's method (Boost.Math) in
  // u = log(alpha - 1) over alpha in (1 + 1e-6, 1 + 1e7) (the tests compare it with a dense grid).
  const auto eps_at = [&](double u) {
    const double alpha = 1 + std::exp(u);
    return per_order * alpha + std::log1p(-1 / alpha) - (std::log(delta) + std::log(alpha)) / (alpha - 1);
  };
  const auto best = boost::math::tools::brent_find_minima(eps_at, std::log(1e-6), std::log(1e7), 60);
  RdpAccount account;
  account.alpha = 1 + std::exp(best.first);
  account.epsilon = std::max(0.0, best.second);
  account.method = "RDP of the Gaussian (continuous alpha), tight conversion";
  return account;
}

std::vector<std::int64_t> integer_rdp_orders() {
  std::vector<std::int64_t> orders;
  for (std::int64_t a = 2; a <= 512; ++a) orders.push_back(a);
  return orders;
}

std::vector<double> rdp_orders() {
  std::vector<double> orders;
  for (int tenths = 11; tenths < 120; ++tenths) {
    if (tenths % 10 != 0) orders.push_back(tenths / 10.0);
  }
  for (const std::int64_t a : integer_rdp_orders()) orders.push_back(static_cast<double>(a));
  return orders;
}

RdpAccount subsampled_gaussian_rdp_account(double noise_multiplier, double sampling_rate, std::int64_t rounds,
                                           double delta) {
  check_noise_multiplier(noise_multiplier);
  // Below this the series' exponents (k^2 - k) / (2 sigma^2) overflow a double before any eps
  // could be printed (at 1e-100 the total is already about 1e200).
  EMBPRIV_CHECK(noise_multiplier >= 1e-100, "accountant: sigma " << noise_multiplier
                                                                 << " is below 1e-100, where the subsampled Gaussian's "
                                                                    "Renyi DP overflows a double");
  check_sampling_rate(sampling_rate);
  check_rounds(rounds);
  check_delta(delta);
  RdpAccount account;
  account.epsilon = std::numeric_limits<double>::infinity();
  for (const double alpha : rdp_orders()) {
    // Composition: RDP adds over rounds (Mironov 2017, Prop. 1).
    const double rdp = static_cast<double>(rounds) * subsampled_gaussian_rdp_real(alpha, sampling_rate, noise_multiplier);
    const double eps = rdp_to_dp_epsilon(alpha, rdp, delta);
    if (eps < account.epsilon) {
      account.epsilon = eps;
      account.alpha = alpha;
    }
  }
  account.method = "RDP of the Poisson-subsampled Gaussian (MTZ 2019, alpha 1.1..11.9 and integers to 512), tight conversion";
  return account;
}

}  // namespace embpriv
