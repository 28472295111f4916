#include "accounting/privacy_loss_distribution.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "accounting/fft.h"
#include "core/error.h"

namespace embpriv {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The largest window the composition allocates (2^25 complex numbers: 512 MiB).
constexpr std::size_t kMaxFftSize = std::size_t{1} << 25;
// The largest one-round grid (points).
constexpr std::int64_t kMaxGridPoints = std::int64_t{1} << 26;

// log(e^a - e^b) for a >= b; -inf when b >= a (a mass that rounding made non-positive).
double log_sub(double a, double b) {
  if (b == -kInf) return a;
  if (!(a > b)) return -kInf;
  const double d = b - a;
  return a + (d > -0.693 ? std::log(-std::expm1(d)) : std::log1p(-std::exp(d)));
}

// P(L in (a, b]) from the two tails, each difference taken on the side where it is small (so
// it keeps its relative precision): above when P(L > a) < 1/2, else below.
double log_interval(double log_above_a, double log_above_b, double log_at_most_a, double log_at_most_b) {
  return log_above_a < std::log(0.5) ? log_sub(log_above_a, log_above_b) : log_sub(log_at_most_b, log_at_most_a);
}

// The loss v where the decreasing log P(L > v) crosses log_tail (the returned v has
// P(L > v) <= tail), or where the increasing log P(L <= v) does (v with P(L <= v) <= tail).
double tail_point(const PrivacyLoss& loss, double log_tail, bool upper) {
  const auto small = [&](double v) {
    const LossTails t = loss.tails(v);
    return (upper ? t.log_p_above : t.log_p_at_most) <= log_tail;
  };
  // Bracket by doubling away from 0 towards the tail, then bisect.
  const double direction = upper ? 1.0 : -1.0;
  double inside = 0, outside = direction;
  if (small(0.0)) {
    // The tail is already small at 0: walk back towards the bulk.
    outside = 0;
    inside = -direction;
    for (int i = 0; small(inside); ++i) {
      outside = inside;
      inside *= 2;
      EMBPRIV_ASSERT(i < 1100, "accountant: the privacy loss has no bulk (" << loss.name() << ")");
    }
  } else {
    for (int i = 0; !small(outside); ++i) {
      inside = outside;
      outside *= 2;
      EMBPRIV_CHECK(i < 1100 && std::isfinite(outside),
                    "accountant: the privacy loss of " << loss.name() << " is unbounded in double precision");
    }
  }
  for (int i = 0; i < 200 && std::abs(outside - inside) > 1e-9 * std::max(1.0, std::abs(outside)); ++i) {
    const double mid = 0.5 * (inside + outside);
    (small(mid) ? outside : inside) = mid;
  }
  return outside;
}

// log E[e^(lambda L); L finite] over a PMF, summed relative to its largest term (no overflow
// for losses of 1e8 and lambda of 1e4).
double log_mgf(const DiscretePld& d, double lambda) {
  // The reference point: the largest (lambda > 0) or smallest (lambda < 0) loss with mass, so
  // the sum is at least that mass (terms far below it underflow harmlessly).
  std::size_t first = 0, last = d.pmf.size() - 1;
  while (first < last && !(d.pmf[first] > 0)) ++first;
  while (last > first && !(d.pmf[last] > 0)) --last;
  const double top = static_cast<double>(d.offset + static_cast<std::int64_t>(lambda > 0 ? last : first)) * d.step;
  double sum = 0;
  for (std::size_t k = 0; k < d.pmf.size(); ++k) {
    const double l = static_cast<double>(d.offset + static_cast<std::int64_t>(k)) * d.step;
    sum += d.pmf[k] * std::exp(lambda * (l - top));
  }
  return lambda * top + std::log(sum);
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

}  // namespace

LossRange privacy_loss_range(const PrivacyLoss& loss, double tail_mass) {
  EMBPRIV_ASSERT(tail_mass > 0 && tail_mass < 1, "privacy_loss_range: bad tail mass " << tail_mass);
  const double log_tail = std::log(tail_mass);
  const double hi = tail_point(loss, log_tail, true), lo = tail_point(loss, log_tail, false);
  return {std::min(lo, hi), std::max(lo, hi)};
}

DiscretePld connect_the_dots(const PrivacyLoss& loss, double step, double tail_mass) {
  EMBPRIV_ASSERT(step > 0 && std::isfinite(step), "connect_the_dots: bad step " << step);
  EMBPRIV_ASSERT(tail_mass > 0 && tail_mass < 1, "connect_the_dots: bad tail mass " << tail_mass);
  const LossRange range = privacy_loss_range(loss, tail_mass);
  const auto first = static_cast<std::int64_t>(std::floor(range.low / step));
  const auto last = static_cast<std::int64_t>(std::ceil(range.high / step));
  EMBPRIV_ASSERT(last - first + 1 <= kMaxGridPoints,
                 "connect_the_dots: " << last - first + 1 << " grid points for " << loss.name());
  DiscretePld d;
  d.step = step;
  d.offset = first;
  d.pmf.assign(static_cast<std::size_t>(last - first + 1), 0.0);
  // Doroshenko et al. 2022, Sec. 3: a loss v in (a, b] = (l_j, l_(j+1)] goes to b with weight
  // w(v) = (1 - e^(a - v)) / (1 - e^(a - b)) and to a with 1 - w(v): P-mass and Q-mass (e^-v of
  // it) are both kept. Integrated over the bucket: the mass sent to b is
  //   (P(a, b] - e^a Q(a, b]) / (1 - e^-h) = P(a, b] (1 - r) / (1 - e^-h),  r = e^a Q(a, b] / P(a, b],
  // r in [e^-h, 1]; the rest stays at a.
  const double one_minus_e_minus_h = -std::expm1(-step);
  LossTails below = loss.tails(static_cast<double>(first) * step);
  // Below the grid: the P-mass of L <= l_first goes up to l_first (pessimistic).
  d.pmf[0] += std::exp(below.log_p_at_most);
  for (std::int64_t j = first; j < last; ++j) {
    const double a = static_cast<double>(j) * step;
    const LossTails above = loss.tails(static_cast<double>(j + 1) * step);
    const double log_p = log_interval(below.log_p_above, above.log_p_above, below.log_p_at_most, above.log_p_at_most);
    if (log_p > -kInf) {
      const double log_q = log_interval(below.log_q_above, above.log_q_above, below.log_q_at_most, above.log_q_at_most);
      const double p = std::exp(log_p);
      const double r = std::clamp(std::exp(a + log_q - log_p), 0.0, 1.0);
      const double to_b = std::clamp(p * (1 - r) / one_minus_e_minus_h, 0.0, p);
      d.pmf[static_cast<std::size_t>(j - first)] += p - to_b;
      d.pmf[static_cast<std::size_t>(j + 1 - first)] += to_b;
    }
    below = above;
  }
  // Above the grid: +inf (pessimistic).
  d.infinity_mass = std::exp(below.log_p_above);
  d.truncated_mass = d.infinity_mass + std::exp(loss.tails(static_cast<double>(first) * step).log_p_at_most);
  return d;
}

ComposedPld compose(const std::vector<std::pair<const DiscretePld*, std::int64_t>>& parts, double tail_mass) {
  EMBPRIV_ASSERT(!parts.empty(), "compose: nothing to compose");
  const double step = parts.front().first->step;
  ComposedPld out;
  out.step = step;
  double log_finite = 0, support_low = 0, support_high = 0, mean = 0, variance = 0;
  for (const auto& [d, n] : parts) {
    EMBPRIV_ASSERT(d->step == step && n >= 1 && !d->pmf.empty(), "compose: parts on different grids");
    const double rounds = static_cast<double>(n);
    out.rounds += rounds;
    out.truncated_mass += rounds * d->truncated_mass;
    log_finite += rounds * std::log1p(-d->infinity_mass);
    support_low += rounds * static_cast<double>(d->offset) * step;
    support_high += rounds * static_cast<double>(d->offset + static_cast<std::int64_t>(d->pmf.size()) - 1) * step;
    double m0 = 0, m1 = 0, m2 = 0;
    for (std::size_t k = 0; k < d->pmf.size(); ++k) {
      const double l = static_cast<double>(d->offset + static_cast<std::int64_t>(k)) * step;
      m0 += d->pmf[k];
      m1 += d->pmf[k] * l;
      m2 += d->pmf[k] * l * l;
    }
    mean += rounds * m1 / m0;
    variance += rounds * std::max(0.0, m2 / m0 - (m1 / m0) * (m1 / m0));
  }
  out.infinity_mass = -std::expm1(log_finite);
  // The window [a, b]: Chernoff bounds on the sum S of the finite losses,
  // P(S >= b) <= prod E[e^(lambda L_i)]^(n_i) e^(-lambda b) and the mirror image, over lambda on a
  // geometric grid around 1 / sd(S); clamped to the support, where the bound is exact (0).
  const double log_tail = std::log(tail_mass), sd = std::max(std::sqrt(variance), step);
  double a = support_low, b = support_high;
  out.mass_above = out.mass_below = 0;
  double best_b = kInf, best_a = -kInf;
  for (int k = -3; k <= 9; ++k) {
    const double lambda = std::ldexp(1.0, k) / sd;
    double log_up = 0, log_down = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const double rounds = static_cast<double>(parts[i].second);
      log_up += rounds * log_mgf(*parts[i].first, lambda);
      log_down += rounds * log_mgf(*parts[i].first, -lambda);
    }
    best_b = std::min(best_b, (log_up - log_tail) / lambda);
    best_a = std::max(best_a, (log_tail - log_down) / lambda);
  }
  if (best_b < b) {
    b = best_b;
    out.mass_above = tail_mass;
  }
  if (best_a > a) {
    a = best_a;
    out.mass_below = tail_mass;
  }
  EMBPRIV_ASSERT(a <= b && std::isfinite(a) && std::isfinite(b), "compose: empty window [" << a << ", " << b << "]");
  (void)mean;
  const auto window_first = static_cast<std::int64_t>(std::floor(a / step));
  const auto window_last = static_cast<std::int64_t>(std::ceil(b / step));
  const auto count = static_cast<std::size_t>(window_last - window_first + 1);
  out.offset = window_first;
  // One round of one part: no convolution.
  if (parts.size() == 1 && parts.front().second == 1) {
    const DiscretePld& d = *parts.front().first;
    out.offset = d.offset;
    out.pmf = d.pmf;
    out.mass_above = out.mass_below = 0;
    return out;
  }
  const std::size_t n = fft_size_at_least(count);
  EMBPRIV_CHECK(n <= kMaxFftSize, "accountant: the privacy-loss window needs " << count << " grid points (more than "
                                                                                 << kMaxFftSize << ")");
  const auto size = static_cast<std::int64_t>(n);
  // Circular convolution mod n: a loss index s sits in slot s mod n, so the sum of the rounds'
  // indices lands in slot (sum mod n), and the window's indices are n consecutive ones.
  std::vector<std::complex<double>> product(n, {1.0, 0.0}), x(n);
  for (const auto& [d, rounds] : parts) {
    std::fill(x.begin(), x.end(), std::complex<double>(0.0, 0.0));
    for (std::size_t k = 0; k < d->pmf.size(); ++k) {
      x[static_cast<std::size_t>(floor_mod(d->offset + static_cast<std::int64_t>(k), size))] += d->pmf[k];
    }
    fft_in_place(x, false);
    for (std::size_t k = 0; k < n; ++k) product[k] = multiply(product[k], power(x[k], rounds));
  }
  fft_in_place(product, true);
  out.pmf.resize(count);
  for (std::size_t k = 0; k < count; ++k) {
    const double value = product[static_cast<std::size_t>(floor_mod(window_first + static_cast<std::int64_t>(k), size))].real();
    out.pmf[k] = std::max(0.0, value);  // FFT rounding leaves values of about -1e-17 where the mass is 0
  }
  return out;
}

double hockey_stick_delta(const ComposedPld& pld, double epsilon) {
  double delta = pld.infinity_mass;
  for (std::size_t k = 0; k < pld.pmf.size(); ++k) {
    const double l = static_cast<double>(pld.offset + static_cast<std::int64_t>(k)) * pld.step;
    if (l > epsilon) delta += pld.pmf[k] * -std::expm1(epsilon - l);
  }
  return delta;
}

double epsilon_at_delta(const ComposedPld& pld, double delta) {
  if (pld.infinity_mass >= delta) return kInf;
  // From the top: for eps in [l_(k-1), l_k), delta(eps) = inf + S1_k - e^(eps - l_k) R_k with
  // S1_k = sum_(j >= k) p_j and R_k = sum_(j >= k) p_j e^(l_k - l_j) = p_k + e^-h R_(k+1).
  const double e_minus_h = std::exp(-pld.step);
  double s1 = 0, r = 0;
  for (std::size_t i = pld.pmf.size(); i-- > 0;) {
    s1 += pld.pmf[i];
    r = pld.pmf[i] + e_minus_h * r;
    const double l = static_cast<double>(pld.offset + static_cast<std::int64_t>(i)) * pld.step;
    const double at_lower_point = pld.infinity_mass + s1 - e_minus_h * r;  // delta(l_(k-1))
    if (at_lower_point > delta || i == 0) {
      const double excess = pld.infinity_mass + s1 - delta;
      if (!(excess > 0) || !(r > 0)) return 0.0;  // delta(eps) <= delta everywhere below
      return std::max(0.0, l + std::log(excess / r));
    }
    if (l < 0 && at_lower_point <= delta) {
      // delta(eps) <= delta already at some eps < 0: the smallest eps >= 0 is 0.
      return 0.0;
    }
  }
  return 0.0;
}

double connect_the_dots_bias(double step) {
  // f(u) = h (1 - e^-u) / (1 - e^-h) - u is concave with f(0) = f(h) = 0; f'(u) = 0 at
  // u* = log(h / (1 - e^-h)).
  const double denominator = -std::expm1(-step);
  const double u = std::log(step / denominator);
  return std::max(0.0, step * -std::expm1(-u) / denominator - u);
}

EpsilonBracket epsilon_bracket(const ComposedPld& pld, double delta) {
  EMBPRIV_ASSERT(delta > 0 && delta < 1, "epsilon_bracket: bad delta " << delta);
  EpsilonBracket bracket;
  // Upper: the dominating pair's delta, plus the finite mass above the window (aliased into it,
  // where it counted less than its mass).
  const double upper_delta = delta - pld.mass_above;
  bracket.upper = upper_delta > 0 ? epsilon_at_delta(pld, upper_delta) : kInf;
  // Lower: delta_true(eps) >= delta_Y(eps + c) - delta_error - truncated - aliased, with
  // c = n b(h) + t and delta_error = e^(-2 t^2 / (n h^2)).
  const double delta_error = 1e-3 * delta;
  const double t = pld.step * std::sqrt(pld.rounds * std::log(1 / delta_error) / 2);
  const double shift = pld.rounds * connect_the_dots_bias(pld.step) + t;
  const double lower_delta = delta + delta_error + pld.truncated_mass + pld.mass_above + pld.mass_below;
  const double eps_y = lower_delta < 1 ? epsilon_at_delta(pld, lower_delta) : 0.0;
  bracket.lower = std::max(0.0, eps_y - shift);
  return bracket;
}

}  // namespace embpriv
