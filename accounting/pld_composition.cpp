// The composition of discretised privacy loss distributions (accounting/privacy_loss_distribution.h):
// the window of the sum, the exponential tilt that keeps the tail above the FFT's rounding, the
// FFT convolution and a bound on what rounding it leaves per point. docs/accounting.md.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <complex>
#include <limits>

#include "accounting/fft.h"
#include "accounting/privacy_loss_distribution.h"
#include "core/error.h"

namespace embpriv {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The largest window the composition allocates (2^25 complex numbers: 512 MiB).
constexpr std::size_t kMaxFftSize = std::size_t{1} << 25;
// The unit roundoff of double.
constexpr double kUnitRoundoff = DBL_EPSILON / 2;

double loss_at(const DiscretePld& d, std::size_t k) { return static_cast<double>(d.offset + static_cast<std::int64_t>(k)) * d.step; }

// log E[e^(lambda L); L finite] over a PMF, summed relative to its largest term (no overflow
// for losses of 1e8 and lambda of 1e4).
double log_mgf(const DiscretePld& d, double lambda) {
  if (lambda == 0) {
    double mass = 0;
    for (const double p : d.pmf) mass += p;
    return std::log(mass);
  }
  // The reference point: the largest (lambda > 0) or smallest (lambda < 0) loss with mass, so
  // the sum is at least that mass (terms far below it underflow harmlessly).
  std::size_t first = 0, last = d.pmf.size() - 1;
  while (first < last && !(d.pmf[first] > 0)) ++first;
  while (last > first && !(d.pmf[last] > 0)) --last;
  const double top = loss_at(d, lambda > 0 ? last : first);
  double sum = 0;
  for (std::size_t k = 0; k < d.pmf.size(); ++k) sum += d.pmf[k] * std::exp(lambda * (loss_at(d, k) - top));
  return lambda * top + std::log(sum);
}

// sum_i n_i log M_i(lambda): the log moment generating function of the sum's finite part.
double log_mgf_of_sum(const PldParts& parts, double lambda) {
  double total = 0;
  for (const auto& [d, n] : parts) total += static_cast<double>(n) * log_mgf(*d, lambda);
  return total;
}

// z^n by repeated squaring, the products written out (std::complex's operator* checks for NaN).
std::complex<double> multiply(std::complex<double> a, std::complex<double> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
std::complex<double> power(std::complex<double> z, std::int64_t n) {
  std::complex<double> result(1.0, 0.0);
  while (n > 0) {
    if (n & 1) result = multiply(result, z);
    n >>= 1;
    if (n > 0) z = multiply(z, z);
  }
  return result;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t n) {
  const std::int64_t r = a % n;
  return r < 0 ? r + n : r;
}

// The standard deviation of the sum's finite part (its support's step at the least).
double sum_standard_deviation(const PldParts& parts) {
  double variance = 0;
  for (const auto& [d, n] : parts) variance += static_cast<double>(n) * finite_loss_variance(*d);
  return std::max(std::sqrt(variance), parts.front().first->step);
}

// The smallest b (over a geometric grid of theta around 1 / sd) with the Chernoff bound
// e^(K(shift + theta) - K(shift) - theta b) <= e^log_tail, K = log_mgf_of_sum: the tilted sum at
// `shift` is above b with probability at most e^log_tail. `sign` -1 mirrors it (a lower end).
double chernoff_end(const PldParts& parts, double shift, double log_tail, double sd, double sign) {
  const double base = log_mgf_of_sum(parts, shift);
  double best = kInf;
  for (int k = -3; k <= 9; ++k) {
    const double theta = std::ldexp(1.0, k) / sd;
    best = std::min(best, (log_mgf_of_sum(parts, shift + sign * theta) - base - log_tail) / theta);
  }
  return sign * best;
}

}  // namespace

double composition_tilt(const PldParts& parts, double delta) {
  EMBPRIV_ASSERT(!parts.empty() && delta > 0 && delta < 1, "composition_tilt: bad input");
  // delta(eps) = E[(1 - e^(eps - S))_+] <= e^(K(lambda) - lambda eps) lambda^lambda / (lambda + 1)^(lambda + 1)
  // for every lambda > 0 (the bound behind the RDP conversion of order lambda + 1: Canonne,
  // Kamath & Steinke 2020, Prop. 12), so eps <= x(lambda) =
  // (K(lambda) - log delta - lambda log(1 + 1 / lambda) - log(1 + lambda)) / lambda. The lambda that
  // minimises it tilts the sum to where eps lies; without the last two terms (a plain tail bound)
  // an atom of more than delta at the top of the support (Laplace) would send lambda to infinity.
  // x is quasi-convex: a grid of quarter octaves around 1 / sd, then golden-section search
  // between the grid neighbours of its minimum.
  const double sd = sum_standard_deviation(parts), log_delta = std::log(delta);
  const auto quantile = [&](double log_lambda) {
    const double lambda = std::exp(log_lambda);
    return (log_mgf_of_sum(parts, lambda) - log_delta - lambda * std::log1p(1 / lambda) - std::log1p(lambda)) / lambda;
  };
  const double first = std::log(1 / sd) - 8 * std::log(2.0);
  const double grid_step = 0.25 * std::log(2.0);
  int best = 0;
  double best_value = kInf;
  for (int i = 0; i <= 96; ++i) {
    const double value = quantile(first + i * grid_step);
    if (value < best_value) {
      best_value = value;
      best = i;
    }
  }
  double lo = first + std::max(0, best - 1) * grid_step, hi = first + std::min(96, best + 1) * grid_step;
  const double golden = 0.5 * (std::sqrt(5.0) - 1);
  for (int i = 0; i < 30; ++i) {
    const double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
    if (quantile(a) < quantile(b)) {
      hi = b;  // the minimum is in [lo, b]
    } else {
      lo = a;  // the minimum is in [a, hi]
    }
  }
  return std::exp(0.5 * (lo + hi));
}

ComposedPld compose(const PldParts& parts, double tail_mass, double tilt) {
  EMBPRIV_ASSERT(!parts.empty(), "compose: nothing to compose");
  EMBPRIV_ASSERT(tilt >= 0 && std::isfinite(tilt), "compose: bad tilt " << tilt);
  const double step = parts.front().first->step;
  ComposedPld out;
  out.step = step;
  double log_finite = 0, support_low = 0, support_high = 0;
  for (const auto& [d, n] : parts) {
    EMBPRIV_ASSERT(d->step == step && n >= 1 && !d->pmf.empty(), "compose: parts on different grids");
    const double rounds = static_cast<double>(n);
    out.rounds += rounds;
    out.truncated_mass += rounds * d->truncated_mass;
    log_finite += rounds * std::log1p(-d->infinity_mass);
    support_low += rounds * loss_at(*d, 0);
    support_high += rounds * loss_at(*d, d->pmf.size() - 1);
  }
  out.infinity_mass = -std::expm1(log_finite);
  // One round of one part: no convolution; the PMF is the discretisation's own (its rounding is
  // that of a few exp and log calls: 1e-12 of each mass is ample).
  if (parts.size() == 1 && parts.front().second == 1) {
    const DiscretePld& d = *parts.front().first;
    out.offset = d.offset;
    out.pmf = d.pmf;
    out.pmf_rounding.resize(d.pmf.size());
    for (std::size_t k = 0; k < d.pmf.size(); ++k) out.pmf_rounding[k] = 1e-12 * d.pmf[k];
    return out;
  }
  // The window [a, b]: Chernoff bounds on the sum S of the finite losses,
  // P(S >= b) <= prod E[e^(theta L_i)]^(n_i) e^(-theta b) and the mirror image; clamped to the
  // support, where the bound is exact (0).
  const double log_tail = std::log(tail_mass), sd = sum_standard_deviation(parts);
  const double a = std::max(support_low, chernoff_end(parts, 0, log_tail, sd, -1));
  double b = std::min(support_high, chernoff_end(parts, 0, log_tail, sd, 1));
  // log M_i(tilt) of each part, and the log of the untilting factor: p_k = y_k e^(log_scale - tilt l_k).
  std::vector<double> log_m(parts.size());
  double log_scale = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    log_m[i] = log_mgf(*parts[i].first, tilt);
    log_scale += static_cast<double>(parts[i].second) * log_m[i];
  }
  if (tilt > 0) {
    // The tilted sum's mass above b folds back to the bottom of the window, where untilting
    // multiplies it by up to e^(log_scale - tilt a): b also holds all but tail_mass / that.
    const double tilted_log_tail = log_tail - std::max(0.0, log_scale - tilt * a);
    b = std::max(b, std::min(support_high, chernoff_end(parts, tilt, tilted_log_tail, sd, 1)));
  }
  // What the circular convolution folds back in: below a (untilted, at most P(S < a): the tilt
  // only shrinks it at the top of the window) and above b (at most tail_mass once untilted).
  out.mass_below = a > support_low ? tail_mass : 0;
  out.mass_above = b < support_high ? tail_mass : 0;
  EMBPRIV_ASSERT(a <= b && std::isfinite(a) && std::isfinite(b), "compose: empty window [" << a << ", " << b << "]");
  const auto window_first = static_cast<std::int64_t>(std::floor(a / step));
  const auto window_last = static_cast<std::int64_t>(std::ceil(b / step));
  const auto count = static_cast<std::size_t>(window_last - window_first + 1);
  out.offset = window_first;
  out.tilt = tilt;
  const std::size_t n = fft_size_at_least(count);
  EMBPRIV_CHECK(n <= kMaxFftSize, "accountant: the privacy-loss window needs " << count << " grid points (more than "
                                                                                 << kMaxFftSize << ")");
  const auto size = static_cast<std::int64_t>(n);
  // Circular convolution mod n: a loss index s sits in slot s mod n, so the sum of the rounds'
  // indices lands in slot (sum mod n), and the window's indices are n consecutive ones. Beside
  // the product, per frequency: magnitude = prod |X_i|^(n_i) and growth = d magnitude / d|X_i|
  // summed, sum_i n_i |X_i|^(n_i - 1) prod_(j != i) |X_j|^(n_j): how an error in one input
  // transform carries into the product.
  std::vector<std::complex<double>> product(n, {1.0, 0.0}), x(n);
  std::vector<double> magnitude(n, 1.0), growth(n, 0.0);
  double log2_rounds = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& [d, rounds] = parts[i];
    std::fill(x.begin(), x.end(), std::complex<double>(0.0, 0.0));
    // The tilted, normalised PMF: p_k e^(tilt l_k) / M(tilt), summing to 1.
    for (std::size_t k = 0; k < d->pmf.size(); ++k) {
      if (!(d->pmf[k] > 0)) continue;
      const double tilted = std::exp(std::log(d->pmf[k]) + tilt * loss_at(*d, k) - log_m[i]);
      x[static_cast<std::size_t>(floor_mod(d->offset + static_cast<std::int64_t>(k), size))] += tilted;
    }
    fft_in_place(x, false);
    const double r = static_cast<double>(rounds);
    for (std::size_t k = 0; k < n; ++k) {
      product[k] = multiply(product[k], power(x[k], rounds));
      const double m = std::abs(x[k]), m_n = std::pow(m, r), m_n1 = r * std::pow(m, r - 1);
      growth[k] = growth[k] * m_n + magnitude[k] * m_n1;
      magnitude[k] *= m_n;
    }
    log2_rounds += std::log2(r + 1);
  }
  // The rounding bound (Higham 2002, Sec. 24.1: each FFT output is a sum through log2(n)
  // butterfly levels, so |error| <= gamma_(c log2 n) sum |inputs|, and the inputs sum to 1):
  // each input transform is off by at most u (5 log2 n + 8) (the tilted masses' own exp
  // included), which the powers carry as growth; the powers' repeated squarings and the
  // products across parts add u (4 log2(n_i + 1) + 4) of the magnitude; the inverse transform
  // u (5 log2 n + 8) of sum |Y| / n. Doubled for the constants the bound does not track.
  const double levels = std::log2(static_cast<double>(n));
  double growth_sum = 0, magnitude_sum = 0;
  for (std::size_t k = 0; k < n; ++k) {
    growth_sum += growth[k];
    magnitude_sum += magnitude[k];
  }
  const double rounding =
      2 * kUnitRoundoff *
      ((5 * levels + 8) * growth_sum + (5 * levels + 8 + 4 * log2_rounds + 4 * static_cast<double>(parts.size())) * magnitude_sum) /
      static_cast<double>(n);
  fft_in_place(product, true);
  out.pmf.resize(count);
  out.pmf_rounding.resize(count);
  // Untilting, in log space and capped at 1 (no mass exceeds it; far below eps the factor
  // e^(log_scale - tilt l) amplifies rounding beyond it, where no delta reads it).
  const double log_rounding = std::log(rounding);
  for (std::size_t k = 0; k < count; ++k) {
    const double l = static_cast<double>(window_first + static_cast<std::int64_t>(k)) * step;
    const double factor = log_scale - tilt * l;
    const double value = product[static_cast<std::size_t>(floor_mod(window_first + static_cast<std::int64_t>(k), size))].real();
    const double mass = value > 0 ? std::exp(std::min(0.0, std::log(value) + factor)) : 0.0;
    // The untilting's own rounding (exp of a factor of up to ~1e3 off by 1e-13 of it) as 1e-12 of
    // the mass.
    out.pmf[k] = mass;
    out.pmf_rounding[k] = std::min(1.0, std::exp(std::min(0.0, log_rounding + factor)) + 1e-12 * mass);
  }
  return out;
}

}  // namespace embpriv
