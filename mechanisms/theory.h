#pragma once
// Closed forms and numerically stable formulas of the vMF paper's theory, used by
// `embpriv bounds` and the tests to compare measurements with what the theory predicts.
#include <cstdint>

namespace embpriv {

// Algorithm 1's deflection angle theta = arctan(beta / eps), in radians (vMF paper, Prop. 3.1).
double deflection_angle_tangent(double beta, double epsilon);
// cos(theta) = 1 / sqrt(1 + (beta/eps)^2): every output's cosine with its input (Prop. 3.1,
// Thm 5.2, Cor. 5.2).
double expected_cosine_tangent(double beta, double epsilon);

// A_d(kappa) = I_{d/2}(kappa) / I_{d/2-1}(kappa), the mean resultant length of vMF(mu, kappa)
// on S^{d-1}: E[mu^T z] = A_d(kappa). Evaluated as the continued fraction of the Bessel ratio
// (vmf_mean_resultant_continued_fraction) wherever that takes at most
// kMaxContinuedFractionSteps steps, else by the large-kappa expansion
// (vmf_mean_resultant_asymptotic). Microseconds to a millisecond for every d >= 2 and finite
// kappa > 0, accurate to about one unit in the last place of A (the value A = 1 is returned
// once 1 - A_d(kappa) ~ (d-1) / (2 kappa) is below half an ulp of 1, kappa > ~1e16 d).
double vmf_mean_resultant(std::int64_t d, double kappa);

// The continued fraction takes about sqrt(nu^2 + 60 kappa) - nu + 20 steps (nu = d/2): 77,500
// at kappa = 1e8, but 2.4e9 (minutes) at kappa = 1e17. Beyond 2^18 steps (about 1 ms; reached
// only for kappa > 1.1e9 and (d - 1) / kappa < 2.3e-4, where the expansion is accurate to
// double precision), vmf_mean_resultant switches to the expansion.
inline constexpr double kMaxContinuedFractionSteps = 262144.0;

// The continued fraction of the Bessel ratio, summed backward from a tail started at the Amos
// (1974) bounds: O(sqrt(kappa) + 1) terms; checked accurate for d in [2, 16384] and kappa in
// [1e-6, 1e11] (tests/mechanisms/theory_test.cpp), but slow far above kappa = 1e9 (see above),
// and it stops with an internal error where A rounds to 1 (kappa > ~1e16 d).
double vmf_mean_resultant_continued_fraction(std::int64_t d, double kappa);
// The large-kappa expansion of the same ratio (from the Riccati equation of I_nu / I_{nu-1};
// the quotient of the Hankel expansions, Abramowitz & Stegun 9.7.1), summed to double
// precision in at most 24 terms. Meant for (d - 1) / kappa small and kappa large (say
// (d - 1) / kappa < 1e-3, kappa > 1e6): it is an asymptotic series and does not converge
// elsewhere.
double vmf_mean_resultant_asymptotic(std::int64_t d, double kappa);

// Thm 5.3: E[y1^T y2] = factor * x1^T x2, with factor cos^2(theta) for Algorithm 1 and
// A_d(kappa)^2 for exact vMF.
double dot_product_factor_tangent(double beta, double epsilon);
double dot_product_factor_vmf(std::int64_t d, double kappa);

// Thm 5.4: E||x + n||^2 = ||x||^2 + d sigma^2 for n ~ N(0, sigma^2 I_d).
double gaussian_expected_squared_norm(double squared_norm_x, std::int64_t d, double sigma);
// Laplace analogue: Var(Laplace(0, b)) = 2 b^2, so E||x + n||^2 = ||x||^2 + 2 d b^2.
double laplace_expected_squared_norm(double squared_norm_x, std::int64_t d, double b);

}  // namespace embpriv
