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
// on S^{d-1}: E[mu^T z] = A_d(kappa). Evaluated as the continued fraction of the Bessel ratio,
// summed backward from a tail started at the Amos (1974) bounds, so it needs
// O(sqrt(kappa) + 1) terms: finite and accurate for d in [2, 16384] and kappa in [1e-6, 1e8]
// (cyl_bessel_i itself underflows there, e.g. order 2047 at kappa = 100).
double vmf_mean_resultant(std::int64_t d, double kappa);

// Thm 5.3: E[y1^T y2] = factor * x1^T x2, with factor cos^2(theta) for Algorithm 1 and
// A_d(kappa)^2 for exact vMF.
double dot_product_factor_tangent(double beta, double epsilon);
double dot_product_factor_vmf(std::int64_t d, double kappa);

// Thm 5.4: E||x + n||^2 = ||x||^2 + d sigma^2 for n ~ N(0, sigma^2 I_d).
double gaussian_expected_squared_norm(double squared_norm_x, std::int64_t d, double sigma);
// Laplace analogue: Var(Laplace(0, b)) = 2 b^2, so E||x + n||^2 = ||x||^2 + 2 d b^2.
double laplace_expected_squared_norm(double squared_norm_x, std::int64_t d, double b);

}  // namespace embpriv
