#include "metrics/distributions.h"

#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/error.h"
#include "core/params.h"

namespace embpriv {
namespace {

// Tolerance on |w| - 1 for samples computed in floating point (w = mu^T y / ||y|| can round a
// few ulps past +-1); such values are clamped to [-1, 1].
constexpr double kUnitTolerance = 1e-9;

// The density of theta = acos(w) for w = mu^T z, z ~ vMF(mu, kappa) on S^{d-1}, scaled by its
// maximum. With w = cos(theta), dw = -sin(theta) dtheta turns Wood's (1994)
// exp(kappa w) (1 - w^2)^((d-3)/2) dw into exp(kappa cos(theta)) sin(theta)^(d-2) dtheta on
// [0, pi]: smooth for every d >= 2, including d = 2, where the density of w has integrable
// singularities at +-1.
class AngleDensity {
 public:
  AngleDensity(std::int64_t d, double kappa) : kappa_(kappa), power_(static_cast<double>(d - 2)) {
    // The mode: d/dtheta [kappa cos + (d-2) ln sin] = 0 <=> kappa (1 - c^2) = (d-2) c, so
    // c* = 2 kappa / ((d-2) + S) with S = sqrt((d-2)^2 + 4 kappa^2). 1 - c* is computed as
    // ((d-2) + (d-2)^2 / (S + 2 kappa)) / ((d-2) + S) (S - 2 kappa rewritten without
    // cancellation), so the mode stays accurate when kappa >> d.
    const double s = std::sqrt(power_ * power_ + 4.0 * kappa_ * kappa_);
    double one_minus_c;
    if (kappa_ == 0.0) {
      one_minus_c = 1.0;  // uniform on the sphere: theta* = pi/2 (any theta when d = 2)
    } else if (power_ == 0.0) {
      one_minus_c = 0.0;  // d = 2: exp(kappa cos(theta)) peaks at theta = 0
    } else {
      one_minus_c = (power_ + power_ * power_ / (s + 2.0 * kappa_)) / (power_ + s);
    }
    mode_ = 2.0 * std::asin(std::sqrt(0.5 * one_minus_c));
    cos_mode_ = std::cos(mode_);
    sin_mode_ = std::sin(mode_);
    // Width of the peak: 1 / sqrt(-h''(theta*)) with h'' = -kappa cos - (d-2) / sin^2.
    const double curvature =
        kappa_ * cos_mode_ + (power_ > 0 ? power_ / (sin_mode_ * sin_mode_) : 0.0);
    width_ = curvature > 0 ? std::min(1.0 / std::sqrt(curvature), M_PI / 4) : M_PI / 4;
    EMBPRIV_ASSERT((power_ == 0 || sin_mode_ > 0) && std::isfinite(width_),
                   "vMF marginal: no finite mode for d = " << d << ", kappa = " << kappa);
  }

  // exp(h(theta) - h(theta*)) in [0, 1], h = kappa cos + (d-2) ln sin. Near the mode the
  // differences are formed without cancellation (cos a - cos b = -2 sin((a+b)/2) sin((a-b)/2),
  // sin a - sin b = 2 cos((a+b)/2) sin((a-b)/2)), so the integrand's rounding noise stays at a
  // few ulps there instead of kappa ulps; the quadrature's error estimate relies on that.
  double operator()(double theta) const {
    const double half_sum = 0.5 * (theta + mode_);
    const double sin_half_difference = std::sin(0.5 * (theta - mode_));
    double log_ratio = -2.0 * kappa_ * std::sin(half_sum) * sin_half_difference;
    if (power_ > 0) {
      const double sin_difference = 2.0 * std::cos(half_sum) * sin_half_difference;
      // sin(theta) / sin(theta*) - 1 >= -1; the clamp stops rounding from making log1p NaN at
      // sin(theta) = 0, where the density is 0 (log1p(-1) = -inf).
      log_ratio += power_ * std::log1p(std::max(-1.0, sin_difference / sin_mode_));
    }
    return std::exp(log_ratio);
  }

  double width() const { return width_; }

  // Points that split [0, pi] so that each piece of the peak is resolved by the quadrature:
  // theta* +- {1, 2, 4, ..., 64} widths, clipped to (0, pi), in DEcreasing order, ending at 0.
  std::vector<double> breakpoints_descending() const {
    std::vector<double> points;
    for (int k = 6; k >= 0; --k) points.push_back(mode_ + std::ldexp(width_, k));
    points.push_back(mode_);
    for (int k = 0; k <= 6; ++k) points.push_back(mode_ - std::ldexp(width_, k));
    std::vector<double> inside;
    for (double p : points) {
      if (p > 0.0 && p < M_PI) inside.push_back(p);
    }
    inside.push_back(0.0);
    return inside;
  }

 private:
  double kappa_;
  double power_;  // d - 2
  double mode_ = 0, cos_mode_ = 1, sin_mode_ = 0, width_ = 1;
};

// The integral of the scaled density (maximum 1) over [lo, hi], to an ABSOLUTE error of about
// 1e-15 * (hi - lo): the total error over [0, pi] stays below ~3e-15 whatever the number of
// pieces, while the far tails (values down to denormals, where a relative tolerance can never
// be met) cost one rule each. Kronrod 15 points, error estimated against Gauss 7 (Boost's
// adaptive gauss_kronrod only offers a relative tolerance). Rounding noise must not force
// endless splits: the 4 eps |K| term covers the integrand's own noise, and pieces shorter than
// 1e-3 peak widths are not split (a 15-point rule is exact to rounding on them).
constexpr double kAbsoluteTolerance = 1e-15;

double integrate_piece(const AngleDensity& f, double lo, double hi, int depth = 0) {
  if (!(hi > lo)) return 0.0;
  using boost::math::quadrature::gauss;
  using boost::math::quadrature::gauss_kronrod;
  const double kronrod = gauss_kronrod<double, 15>::integrate(f, lo, hi, 0);
  const double error = std::fabs(kronrod - gauss<double, 7>::integrate(f, lo, hi));
  const double tolerance =
      kAbsoluteTolerance * (hi - lo) + 4.0 * std::numeric_limits<double>::epsilon() * std::fabs(kronrod);
  if (error <= tolerance || hi - lo <= 1e-3 * f.width() || depth >= 40) return kronrod;
  const double mid = 0.5 * (lo + hi);
  return integrate_piece(f, lo, mid, depth + 1) + integrate_piece(f, mid, hi, depth + 1);
}

}  // namespace

std::vector<double> vmf_marginal_cdf(std::int64_t d, double kappa,
                                     const std::vector<double>& sorted_w) {
  EMBPRIV_CHECK(d >= 2, "dimension d must be >= 2, got " << d);
  EMBPRIV_CHECK(std::isfinite(kappa) && kappa >= 0, "kappa must be finite and >= 0, got " << kappa);
  // The mode computation needs sin(theta*) > 0 in double: kappa / (d - 2) up to about 1e15.
  // Beyond 1e8 the marginal is a spike that no float32 sample resolves anyway.
  EMBPRIV_CHECK(kappa <= 1e8, "kappa must be <= 1e8 for the vMF marginal CDF, got " << kappa);
  // Angles theta_i = acos(w_i): decreasing when w is increasing.
  std::vector<double> theta(sorted_w.size());
  for (std::size_t i = 0; i < sorted_w.size(); ++i) {
    const double w = sorted_w[i];
    EMBPRIV_CHECK(w >= -1.0 - kUnitTolerance && w <= 1.0 + kUnitTolerance,
                  "w must be in [-1, 1], got " << w << " at index " << i);
    EMBPRIV_CHECK(i == 0 || w >= sorted_w[i - 1],
                  "w must be sorted in increasing order, but w[" << i << "] = " << w
                                                                  << " < w[" << i - 1
                                                                  << "] = " << sorted_w[i - 1]);
    theta[i] = std::acos(std::clamp(w, -1.0, 1.0));
  }

  // P(W <= w) = P(Theta >= acos(w)) = H(acos(w)) / H(0) with H(t) = int_t^pi density.
  // Walk down from pi, integrating between consecutive points of the merged list of sample
  // angles and breakpoints, and accumulate H; H(0) is the normaliser.
  const AngleDensity density(d, kappa);
  const std::vector<double> breaks = density.breakpoints_descending();
  std::vector<double> cdf(sorted_w.size());
  double position = M_PI;
  double tail = 0.0;  // H(position)
  std::size_t next_break = 0;
  for (std::size_t i = 0; i < theta.size(); ++i) {
    while (breaks[next_break] > theta[i]) {
      tail += integrate_piece(density, breaks[next_break], position);
      position = breaks[next_break++];
    }
    tail += integrate_piece(density, theta[i], position);
    position = std::min(position, theta[i]);
    cdf[i] = tail;
  }
  for (; next_break < breaks.size(); ++next_break) {
    tail += integrate_piece(density, breaks[next_break], position);
    position = breaks[next_break];
  }
  EMBPRIV_ASSERT(std::isfinite(tail) && tail > 0,
                 "vMF marginal: normaliser " << tail << " for d = " << d << ", kappa = " << kappa);
  for (double& value : cdf) value = std::min(1.0, value / tail);
  return cdf;
}

double sphere_coordinate_cdf(std::int64_t m, double t) {
  EMBPRIV_CHECK(m >= 2, "sphere dimension m must be >= 2, got " << m);
  EMBPRIV_CHECK(!std::isnan(t), "t must not be NaN");
  if (t <= -1.0) return 0.0;
  if (t >= 1.0) return 1.0;
  // A uniform u on S^{m-1} is g / ||g|| with g ~ N(0, I_m), so u_1^2 ~ Beta(1/2, (m-1)/2) and,
  // by symmetry, (u_1 + 1) / 2 ~ Beta((m-1)/2, (m-1)/2).
  const double a = 0.5 * static_cast<double>(m - 1);
  return boost::math::ibeta(a, a, 0.5 * (1.0 + t));
}

double standard_normal_cdf(double x) {
  EMBPRIV_CHECK(!std::isnan(x), "x must not be NaN");
  // Phi(x) = erfc(-x / sqrt(2)) / 2: accurate in the left tail, unlike 1 + erf.
  return 0.5 * boost::math::erfc(-x / std::sqrt(2.0));
}

double laplace_cdf(double x, double b) {
  require_positive("b", b);
  EMBPRIV_CHECK(!std::isnan(x), "x must not be NaN");
  return x < 0 ? 0.5 * std::exp(x / b) : 1.0 - 0.5 * std::exp(-x / b);
}

}  // namespace embpriv
