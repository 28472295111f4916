#include "accounting/privacy_loss_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"

namespace embpriv {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
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

double finite_loss_variance(const DiscretePld& d) {
  double m0 = 0, m1 = 0, m2 = 0;
  for (std::size_t k = 0; k < d.pmf.size(); ++k) {
    const double l = static_cast<double>(d.offset + static_cast<std::int64_t>(k)) * d.step;
    m0 += d.pmf[k];
    m1 += d.pmf[k] * l;
    m2 += d.pmf[k] * l * l;
  }
  return m0 > 0 ? std::max(0.0, m2 / m0 - (m1 / m0) * (m1 / m0)) : 0.0;
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
  // The PMF's two sides of its rounding: each point's exact mass is in [low, high].
  ComposedPld high = pld, low = pld;
  for (std::size_t k = 0; k < pld.pmf.size(); ++k) {
    const double error = k < pld.pmf_rounding.size() ? pld.pmf_rounding[k] : 0.0;
    high.pmf[k] = std::min(1.0, pld.pmf[k] + error);
    low.pmf[k] = std::max(0.0, pld.pmf[k] - error);
  }
  // Upper: the dominating pair's delta, plus the finite mass above the window (aliased into it,
  // where it counted less than its mass).
  const double upper_delta = delta - pld.mass_above;
  bracket.upper = upper_delta > 0 ? epsilon_at_delta(high, upper_delta) : kInf;
  // Lower: delta_true(eps) >= delta_Y(eps + c) - delta_error - truncated - aliased, with
  // c = n b(h) + t and delta_error = e^(-2 t^2 / (n h^2)).
  const double delta_error = 1e-3 * delta;
  const double t = pld.step * std::sqrt(pld.rounds * std::log(1 / delta_error) / 2);
  const double shift = pld.rounds * connect_the_dots_bias(pld.step) + t;
  const double lower_delta = delta + delta_error + pld.truncated_mass + pld.mass_above + pld.mass_below;
  const double eps_y = lower_delta < 1 ? epsilon_at_delta(low, lower_delta) : 0.0;
  bracket.lower = std::max(0.0, eps_y - shift);
  return bracket;
}

}  // namespace embpriv
