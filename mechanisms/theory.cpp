#include "mechanisms/theory.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/params.h"

namespace embpriv {
namespace {

// Bounds of the Bessel-function ratio r_v(x) = I_{v+1}(x) / I_v(x) for v >= 0, x > 0
// (Amos 1974, "Computation of modified Bessel functions and their ratios", Math. Comp. 28).
// NB: x / (v + 1/2 + sqrt((v + 3/2)^2 + x^2)) is a LOWER bound, not an upper one; the upper
// bounds are the two below. All four were checked numerically against
// boost::math::cyl_bessel_i wherever Boost is accurate (v in [0, 100], x in [1e-3, 500], both
// Bessel values away from under/overflow): the two lower bounds held with relative margin
// >= 7e-13, the two upper bounds with relative margin >= -4e-16 (rounding).
//   lower: x / (v + 1/2 + sqrt((v + 3/2)^2 + x^2))   (the sharper lower bound for large x)
//          x / (v + 1   + sqrt((v + 1)^2   + x^2))   (weaker; not used)
//   upper: x / (v + 1/2 + sqrt((v + 1/2)^2 + x^2))   (sharp for large x)
//          x / (v       + sqrt((v + 2)^2   + x^2))   (sharp for small x)
double bessel_ratio_start(double v, double x) {
  const double lower = x / (v + 0.5 + std::sqrt((v + 1.5) * (v + 1.5) + x * x));
  const double upper = std::min(x / (v + 0.5 + std::sqrt((v + 0.5) * (v + 0.5) + x * x)),
                                x / (v + std::sqrt((v + 2.0) * (v + 2.0) + x * x)));
  return 0.5 * (lower + upper);
}

// The number of backward steps the continued fraction of A_d(kappa) takes (see
// vmf_mean_resultant_continued_fraction): sqrt(nu^2 + 60 kappa) - nu, plus 20.
double continued_fraction_steps(double nu, double kappa) {
  return std::ceil(std::sqrt(nu * nu + 60.0 * kappa) - nu) + 20.0;
}

void check_resultant_arguments(std::int64_t d, double kappa) {
  EMBPRIV_CHECK(d >= 2, "dimension d must be >= 2, got " << d);
  require_positive("kappa", kappa);
}

}  // namespace

double deflection_angle_tangent(double beta, double epsilon) {
  require_positive("beta", beta);
  require_positive("epsilon", epsilon);
  // vMF paper, Prop. 3.1: tan(theta) = lambda = beta / eps.
  return std::atan(beta / epsilon);
}

double expected_cosine_tangent(double beta, double epsilon) {
  require_positive("beta", beta);
  require_positive("epsilon", epsilon);
  // cos(arctan(l)) = 1 / sqrt(1 + l^2) (vMF paper, Thm 5.2, Cor. 5.2); hypot avoids overflow
  // of l^2 for extreme ratios.
  return 1.0 / std::hypot(1.0, beta / epsilon);
}

double vmf_mean_resultant(std::int64_t d, double kappa) {
  check_resultant_arguments(d, kappa);
  const double nu = 0.5 * static_cast<double>(d);
  if (continued_fraction_steps(nu, kappa) > kMaxContinuedFractionSteps) {
    return vmf_mean_resultant_asymptotic(d, kappa);
  }
  return vmf_mean_resultant_continued_fraction(d, kappa);
}

double vmf_mean_resultant_asymptotic(std::int64_t d, double kappa) {
  check_resultant_arguments(d, kappa);
  // R(x) = A_d(x) = I_nu(x) / I_{nu-1}(x), nu = d/2, solves the Riccati equation
  // R' = 1 - R^2 - (m / x) R with m = 2 nu - 1 = d - 1 (from I_nu' = I_{nu-1} - (nu/x) I_nu and
  // I_{nu-1}' = I_nu + ((nu-1)/x) I_{nu-1}, Abramowitz & Stegun 9.6.26). Its large-x expansion
  // R ~ sum_n c_n x^-n (the quotient of the two Hankel expansions, A&S 9.7.1) has c_0 = 1,
  // c_1 = -m/2, and, matching the powers x^-(n+1),
  //   c_{n+1} = ((n - m) c_n - sum_{i=1..n} c_i c_{n+1-i}) / 2,
  // so c_2 = c_3 = m (m - 2) / 8, c_4 = -m (m - 2) (m - 6) (m + 4) / 128, ...
  // The terms t_n = c_n x^-n obey the same recurrence, with the sum of products taken as is:
  //   t_{n+1} = ((n - m) t_n / x - sum_{i=1..n} t_i t_{n+1-i}) / 2.
  // For m << x they shrink like (m / (2x))^n (times n! / (2x)^n at small m), and we sum
  // 1 - R = -sum t_n (carried as is, like the S_u phase of the continued fraction, so 1 - A
  // keeps its relative accuracy) until a term falls below 2^-64 of the sum. The series is
  // asymptotic, not convergent: it is meant for m / x small and x large only. Where
  // vmf_mean_resultant uses it (the continued fraction would take more than
  // kMaxContinuedFractionSteps = K steps), 60 x > K^2 + 2 nu K, so x > 1.1e9 and m / x < 2.3e-4,
  // and the fifth term is already below 1e-17 of the first.
  const double x = kappa;
  const double m = static_cast<double>(d) - 1.0;
  constexpr int kMaxTerms = 24;
  double t[kMaxTerms + 1];
  t[1] = -0.5 * (m / x);  // not m / (2x): 2x overflows for x > DBL_MAX / 2
  double one_minus_r = -t[1];
  for (int n = 1; n < kMaxTerms; ++n) {
    double products = 0.0;
    for (int i = 1; i <= n; ++i) products += t[i] * t[n + 1 - i];
    t[n + 1] = ((static_cast<double>(n) - m) * t[n] / x - products) / 2.0;
    one_minus_r -= t[n + 1];
    if (std::fabs(t[n + 1]) <= 0x1p-64 * one_minus_r) break;
  }
  // A rounds to 1 once 1 - A < 2^-54 (kappa > ~1e16 d); only then is it not below 1.
  const double r = 1.0 - one_minus_r;
  EMBPRIV_ASSERT(std::isfinite(r) && r > 0.0 && r <= 1.0,
                 "A_d(kappa) out of (0, 1): d = " << d << ", kappa = " << kappa << ", got " << r);
  return r;
}

double vmf_mean_resultant_continued_fraction(std::int64_t d, double kappa) {
  check_resultant_arguments(d, kappa);
  // A_d(kappa) = R_nu(kappa) with nu = d/2 and R_u(x) = I_u(x) / I_{u-1}(x).
  // From the recurrence I_{u-1}(x) - I_{u+1}(x) = (2u/x) I_u(x) (Abramowitz & Stegun 9.6.26),
  // dividing by I_u: 1/R_u - R_{u+1} = 2u/x, i.e. R_u = x / (2u + x R_{u+1}): the classical
  // continued fraction of the ratio (Gauss), summed here backward from u = nu + K to u = nu.
  const double nu = 0.5 * static_cast<double>(d);
  const double x = kappa;
  // The backward recurrence is stable: dR_u / dR_{u+1} = -R_u^2, so a relative error in the
  // start value shrinks by about R_u R_{u+1} per step, i.e. by prod R_u^2 over K steps. With
  // R_u ~ x / (u + sqrt(u^2 + x^2)) = exp(-asinh(u/x)) and asinh(t) ~ t for u << x (the
  // regime of large kappa, where the step count matters), prod R_u^2 ~ exp(-(2 nu K + K^2) / x).
  // Asking for a factor e^-60 (~1e-26, far below double rounding) gives
  // K = sqrt(nu^2 + 60 x) - nu; since asinh(t) < t, 20 more steps make up the difference.
  // Checked numerically with the Amos upper bound for every R_u: over a log grid of d in
  // [2, 16384] and kappa in [1e-6, 1e8] the damping exponent sum -2 ln R_u is >= 60.03
  // (minimum near d = 900, kappa = 9e7). This is O(sqrt(kappa) + 1) steps: about 77,500 at
  // kappa = 1e8, 21 at kappa = 1e-6. The start value itself is within a factor 2 of R_u.
  const std::int64_t steps = static_cast<std::int64_t>(continued_fraction_steps(nu, x));
  const double u_start = nu + static_cast<double>(steps);
  // R_{u_start} = I_{v+1} / I_v with v = u_start - 1 >= nu - 1 + 20 >= 0.
  double r = bessel_ratio_start(u_start - 1.0, x);
  std::int64_t k = steps - 1;
  // Phase 1, while u >= x: R_u <= x / (u + sqrt(u^2 + x^2)) <= 0.42, carried as is.
  for (; k >= 0 && nu + static_cast<double>(k) >= x; --k) {
    const double u = nu + static_cast<double>(k);
    r = x / (2.0 * u + x * r);
  }
  if (k >= 0) {
    // Phase 2, while u < x: R_u tends to 1 (1 - R_u ~ (2u - 1) / (2x)), and carrying R would
    // accumulate one rounding error of size ulp(1) per step, ~sqrt(kappa) of them (1e-14
    // absolute at kappa = 1e8). Carrying S_u = 1 - R_u instead,
    // S_u = (2u - x S_{u+1}) / (2u + x R_{u+1}) (the same recurrence; the numerator is about
    // u - 1/2, so no cancellation), each rounding error is relative to S_u, and the total
    // absolute error of A stays at a few 1e-17 for every kappa.
    double s = 1.0 - r;
    for (; k >= 0; --k) {
      const double u = nu + static_cast<double>(k);
      s = (2.0 * u - x * s) / (2.0 * u + x * (1.0 - s));
    }
    r = 1.0 - s;
  }
  EMBPRIV_ASSERT(std::isfinite(r) && r > 0.0 && r < 1.0,
                 "A_d(kappa) out of (0, 1): d = " << d << ", kappa = " << kappa << ", got " << r);
  return r;
}

double dot_product_factor_tangent(double beta, double epsilon) {
  const double c = expected_cosine_tangent(beta, epsilon);
  return c * c;  // vMF paper, Thm 5.3: E[y1^T y2] = cos^2(theta) x1^T x2.
}

double dot_product_factor_vmf(std::int64_t d, double kappa) {
  // Thm 5.3 for exact vMF: y1, y2 independent with E[y_i] = A_d(kappa) x_i.
  const double a = vmf_mean_resultant(d, kappa);
  return a * a;
}

double gaussian_expected_squared_norm(double squared_norm_x, std::int64_t d, double sigma) {
  EMBPRIV_CHECK(std::isfinite(squared_norm_x) && squared_norm_x >= 0,
                "squared_norm_x must be finite and >= 0, got " << squared_norm_x);
  EMBPRIV_CHECK(d >= 1, "dimension d must be >= 1, got " << d);
  require_positive("sigma", sigma);
  // vMF paper, Thm 5.4: E||x + n||^2 = ||x||^2 + 2 x^T E[n] + E||n||^2 = ||x||^2 + d sigma^2.
  return squared_norm_x + static_cast<double>(d) * sigma * sigma;
}

double laplace_expected_squared_norm(double squared_norm_x, std::int64_t d, double b) {
  EMBPRIV_CHECK(std::isfinite(squared_norm_x) && squared_norm_x >= 0,
                "squared_norm_x must be finite and >= 0, got " << squared_norm_x);
  EMBPRIV_CHECK(d >= 1, "dimension d must be >= 1, got " << d);
  require_positive("b", b);
  // Var(Laplace(0, b)) = 2 b^2 per coordinate.
  return squared_norm_x + 2.0 * static_cast<double>(d) * b * b;
}

}  // namespace embpriv
