// Statistical tests of the direction mechanisms `vmf` (exact von Mises-Fisher, Wood 1994) and
// `vmf_tangent` (the vMF paper's Algorithm 1).
//
// - vmf: w = mu^T y / ||y|| must follow the vMF marginal, density proportional to
//   exp(kappa w) (1 - w^2)^((d-3)/2) (metrics/distributions.h), and its mean must be
//   A_d(kappa) (mechanisms/theory.h).
// - both: the direction of the tangent part of y / ||y|| must be uniform on the unit sphere of
//   the complement of mu (isotropy; vMF paper, Lemma 3.2 for Algorithm 1; for vMF by its
//   rotational symmetry about mu), so its coordinate along a fixed unit e orthogonal to mu
//   follows sphere_coordinate_cdf(d - 1, .).
// False alarms: KS at alpha = 1e-6 (DKW-Massart) and normal intervals at 1 - 1e-6, fixed seeds.
// Power: each acceptance is paired with a broken variant that must be rejected (kappa x 1.1,
// one tangent direction stretched by 1.1, noise with one anisotropic coordinate).
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "mechanisms/vmf.h"
#include "mechanisms/vmf_tangent.h"
#include "metrics/distributions.h"
#include "metrics/intervals.h"
#include "metrics/ks_test.h"
#include "metrics/running_stats.h"
#include "metrics/similarity.h"
#include "mechanisms/theory.h"
#include "tests/catch.h"

namespace {

constexpr double kAlpha = 1e-6;

// n random directions in R^d with norms in [0.5, 2] (torch's CPU generator, fixed seed).
at::Tensor random_inputs(std::int64_t n, std::int64_t d, std::uint64_t seed) {
  at::Generator generator = at::detail::createCPUGenerator(seed);
  const at::Tensor g = at::randn({n, d}, generator, at::kFloat);
  const at::Tensor norms = 0.5 + 1.5 * at::rand({n, 1}, generator, at::kFloat);
  return (g / g.norm(2, 1, true) * norms).contiguous();
}

// w_i = cos(x_i, y_i) = mu_i^T y_i / ||y_i|| for n rows of dimension d, drawn in chunks of
// at most 20,000 rows (bounded memory at large d) from one random stream.
std::vector<double> cosines_to_input(const embpriv::Mechanism& m, std::int64_t n, std::int64_t d,
                                     std::uint64_t seed) {
  std::vector<double> w;
  const std::int64_t chunk = 20000;
  for (std::int64_t first = 0; first < n; first += chunk) {
    const std::int64_t rows = std::min(chunk, n - first);
    const at::Tensor x = random_inputs(rows, d, seed * 1000 + static_cast<std::uint64_t>(first));
    const at::Tensor y = m.perturb(x, embpriv::RandomStream{seed, first});
    const std::vector<double> part = embpriv::row_cosines(x, y);
    w.insert(w.end(), part.begin(), part.end());
  }
  return w;
}

embpriv::KsResult ks_against_vmf(const std::vector<double>& w, std::int64_t d, double kappa) {
  return embpriv::ks_test_sorted_cdf(
      w,
      [&](const std::vector<double>& sorted) {
        return embpriv::vmf_marginal_cdf(d, kappa, sorted);
      },
      kAlpha);
}

embpriv::Interval mean_interval(const std::vector<double>& values) {
  embpriv::RunningStats stats;
  for (double v : values) stats.add(v);
  return embpriv::normal_mean_interval(stats.mean(), stats.standard_error(), 1.0 - kAlpha);
}

// A fixed input direction and a unit vector e orthogonal to it: e is the coordinate axis e_0
// projected on the complement of mu, so a mechanism that treats coordinate 0 differently shows
// up along e.
struct Frame {
  std::vector<float> x;  // the input row, norm 1.7
  std::vector<double> mu;
  std::vector<double> e;
};

Frame make_frame(std::int64_t d, std::uint64_t seed) {
  const at::Tensor row = random_inputs(1, d, seed)[0];
  Frame f;
  double norm = 0;
  for (std::int64_t j = 0; j < d; ++j) norm += std::pow(row[j].item<double>(), 2);
  norm = std::sqrt(norm);
  for (std::int64_t j = 0; j < d; ++j) {
    f.x.push_back(static_cast<float>(1.7 * row[j].item<double>() / norm));
  }
  double xx = 0;
  for (float v : f.x) xx += static_cast<double>(v) * v;
  for (float v : f.x) f.mu.push_back(v / std::sqrt(xx));
  f.e.assign(static_cast<std::size_t>(d), 0.0);
  for (std::int64_t j = 0; j < d; ++j) f.e[j] = (j == 0 ? 1.0 : 0.0) - f.mu[0] * f.mu[j];
  double ee = 0;
  for (double v : f.e) ee += v * v;
  for (double& v : f.e) v /= std::sqrt(ee);
  return f;
}

at::Tensor repeated(const Frame& f, std::int64_t n) {
  const auto d = static_cast<std::int64_t>(f.x.size());
  return at::from_blob(const_cast<float*>(f.x.data()), {1, d}, at::kFloat)
      .expand({n, d})
      .contiguous();
}

// For each output row: mu' = y / ||y||, t = mu' - (mu^T mu') mu (the tangent part), optionally
// stretched along e by `stretch` (t += (stretch - 1) (e^T t) e, the broken variant), then
// s = e^T t / ||t||.
std::vector<double> tangent_coordinates(const at::Tensor& y, const Frame& f, double stretch) {
  const std::int64_t n = y.size(0), d = y.size(1);
  const at::Tensor yc = y.contiguous();
  const float* p = yc.data_ptr<float>();
  std::vector<double> s(static_cast<std::size_t>(n));
  std::vector<double> t(static_cast<std::size_t>(d));
  for (std::int64_t i = 0; i < n; ++i) {
    const float* row = p + i * d;
    double yy = 0, mu_y = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      yy += static_cast<double>(row[j]) * row[j];
      mu_y += f.mu[j] * row[j];
    }
    const double inv = 1.0 / std::sqrt(yy);
    double e_t = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      t[j] = row[j] * inv - mu_y * inv * f.mu[j];
      e_t += f.e[j] * t[j];
    }
    double tt = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      t[j] += (stretch - 1.0) * e_t * f.e[j];
      tt += t[j] * t[j];
    }
    s[i] = stretch * e_t / std::sqrt(tt);
  }
  return s;
}

embpriv::KsResult ks_isotropic(const std::vector<double>& s, std::int64_t d) {
  return embpriv::ks_test(
      s, [d](double v) { return embpriv::sphere_coordinate_cdf(d - 1, v); }, kAlpha);
}

// A broken Algorithm 1: the Gaussian noise has standard deviation `stretch` in coordinate 0 and
// 1 elsewhere before the tangent projection (the rest as in the paper).
class AnisotropicTangentMechanism final : public embpriv::Mechanism {
 public:
  AnisotropicTangentMechanism(double epsilon, double beta, double stretch)
      : Mechanism("anisotropic_tangent", epsilon, 1.0, /*needs_direction=*/true),
        lambda_(beta / epsilon),
        stretch_(stretch) {}
  std::unique_ptr<embpriv::RowKernel> make_kernel(double) const override {
    return std::make_unique<Kernel>(lambda_, stretch_);
  }
  embpriv::NeighbouringPair neighbouring_pair(std::int64_t d, double distance) const override {
    return direction_pair(d, distance, epsilon());
  }

 protected:
  embpriv::PrivacyClaim claim_at(double epsilon) const override {
    return {"none", epsilon, 0.0, "", "a deliberately broken test double"};
  }

 private:
  class Kernel final : public embpriv::RowKernel {
   public:
    Kernel(double lambda, double stretch) : lambda_(lambda), stretch_(stretch) {}
    void apply(const float* x, float* y, std::int64_t d, embpriv::Rng& rng,
               double* n) const override {
      double r2 = 0, n_mu = 0;
      for (std::int64_t j = 0; j < d; ++j) r2 += static_cast<double>(x[j]) * x[j];
      const double r = std::sqrt(r2);
      for (std::int64_t j = 0; j < d; ++j) {
        n[j] = rng.normal() * (j == 0 ? stretch_ : 1.0);
        n_mu += n[j] * x[j] / r;
      }
      double perp2 = 0;
      for (std::int64_t j = 0; j < d; ++j) {
        n[j] -= n_mu * x[j] / r;
        perp2 += n[j] * n[j];
      }
      double z2 = 0;
      for (std::int64_t j = 0; j < d; ++j) {
        n[j] = x[j] / r + lambda_ * n[j] / std::sqrt(perp2);
        z2 += n[j] * n[j];
      }
      for (std::int64_t j = 0; j < d; ++j) y[j] = static_cast<float>(r * n[j] / std::sqrt(z2));
    }

   private:
    double lambda_, stretch_;
  };
  double lambda_, stretch_;
};

// vmf at kappa = eps / beta (beta = 1): the KS test of w against the vMF marginal and the
// normal interval of its mean around A_d(kappa) accept; the same at kappa x 1.1 reject.
void check_vmf_marginal(std::int64_t d, double kappa, std::int64_t n, std::uint64_t seed) {
  INFO("d = " << d << ", kappa = " << kappa << ", n = " << n);
  const embpriv::VmfMechanism vmf(/*epsilon=*/kappa, /*beta=*/1.0);
  REQUIRE(vmf.kappa() == kappa);
  const std::vector<double> w = cosines_to_input(vmf, n, d, seed);
  const embpriv::KsResult right = ks_against_vmf(w, d, kappa);
  INFO("D = " << right.statistic << ", critical " << right.critical);
  CHECK_FALSE(right.reject());
  // Thm 5.3's ingredient: E[w] = A_d(kappa).
  const double a = embpriv::vmf_mean_resultant(d, kappa);
  CHECK(mean_interval(w).contains(a));

  const embpriv::VmfMechanism concentrated(1.1 * kappa, 1.0);
  const std::vector<double> w_broken = cosines_to_input(concentrated, n, d, seed + 1);
  const embpriv::KsResult wrong = ks_against_vmf(w_broken, d, kappa);
  INFO("kappa x 1.1: D = " << wrong.statistic);
  CHECK(wrong.reject());
  CHECK_FALSE(mean_interval(w_broken).contains(a));
}

}  // namespace

// n = 200,000 rows (critical value 0.0060); the kappa x 1.1 marginals are at KS distance
// 0.085 (16, 20), 0.025 (64, 5) and 0.032 (3, 2) from the nominal ones (mpmath quadrature).
TEST_CASE("vmf (d = 16, kappa = 20): w follows the vMF marginal; kappa x 1.1 is rejected",
          "[stat][mechanisms][vmf]") {
  check_vmf_marginal(16, 20.0, 200000, 41);
}

TEST_CASE("vmf (d = 64, kappa = 5): w follows the vMF marginal; kappa x 1.1 is rejected",
          "[stat][mechanisms][vmf]") {
  check_vmf_marginal(64, 5.0, 200000, 43);
}

TEST_CASE("vmf (d = 3, kappa = 2): w follows the vMF marginal; kappa x 1.1 is rejected",
          "[stat][mechanisms][vmf]") {
  check_vmf_marginal(3, 2.0, 200000, 45);
}

TEST_CASE("vmf (d = 768, kappa = 500): w follows the vMF marginal; kappa x 1.1 is rejected",
          "[stat][mechanisms][vmf]") {
  // The regime of real embeddings (Wood's Beta shapes 383.5); n = 50,000 (critical value
  // 0.012). At kappa x 1.1 the mean of w moves from 0.493 to 0.522, more than one standard
  // deviation of w (0.025): KS distance 0.45.
  check_vmf_marginal(768, 500.0, 50000, 47);
}

TEST_CASE("vmf_tangent: the tangent direction is isotropic; anisotropy is rejected",
          "[stat][mechanisms][vmf]") {
  // d = 16, eps = 2, beta = 1 (deflection arctan(1/2) = 26.6 degrees); 200,000 rows of one
  // fixed input (critical value 0.0060). A 1.1 stretch of the tangent coordinate along e puts
  // it at KS distance 0.022 (mpmath); noise with standard deviation 1.2 in coordinate 0 gave
  // D = 0.043 with this seed.
  const std::int64_t d = 16, n = 200000;
  const Frame frame = make_frame(d, 51);
  const at::Tensor x = repeated(frame, n);
  const embpriv::VmfTangentMechanism tangent(2.0, 1.0);
  const at::Tensor y = tangent.perturb(x, embpriv::RandomStream{52, 0});
  // Every output is at the same angle arctan(beta / eps) from its input (Prop. 3.1).
  const std::vector<double> cosines = embpriv::row_cosines(x, y);
  const double expected_cosine = embpriv::expected_cosine_tangent(1.0, 2.0);
  double worst = 0;
  for (double c : cosines) worst = std::max(worst, std::fabs(c - expected_cosine));
  CHECK(worst < 1e-6);  // float32 outputs

  const embpriv::KsResult right = ks_isotropic(tangent_coordinates(y, frame, 1.0), d);
  INFO("D = " << right.statistic << ", critical " << right.critical);
  CHECK_FALSE(right.reject());
  CHECK(ks_isotropic(tangent_coordinates(y, frame, 1.1), d).reject());

  const AnisotropicTangentMechanism anisotropic(2.0, 1.0, 1.2);
  const at::Tensor y_broken = anisotropic.perturb(x, embpriv::RandomStream{52, 0});
  const embpriv::KsResult wrong = ks_isotropic(tangent_coordinates(y_broken, frame, 1.0), d);
  INFO("anisotropic noise: D = " << wrong.statistic);
  CHECK(wrong.reject());
  // The test double is Algorithm 1 itself when the stretch is 1: same draws, same outputs up
  // to rounding, so the rejection above is due to the anisotropy alone.
  const AnisotropicTangentMechanism isotropic(2.0, 1.0, 1.0);
  const at::Tensor y_same = isotropic.perturb(x.narrow(0, 0, 1000), embpriv::RandomStream{52, 0});
  CHECK(at::allclose(y_same, y.narrow(0, 0, 1000), 1e-5, 1e-6));
}

TEST_CASE("vmf: the tangent direction is isotropic; a stretched direction is rejected",
          "[stat][mechanisms][vmf]") {
  // d = 16, kappa = 20; 200,000 rows of one fixed input (critical value 0.0060).
  const std::int64_t d = 16, n = 200000;
  const Frame frame = make_frame(d, 61);
  const at::Tensor x = repeated(frame, n);
  const embpriv::VmfMechanism vmf(20.0, 1.0);
  const at::Tensor y = vmf.perturb(x, embpriv::RandomStream{62, 0});
  const embpriv::KsResult right = ks_isotropic(tangent_coordinates(y, frame, 1.0), d);
  INFO("D = " << right.statistic << ", critical " << right.critical);
  CHECK_FALSE(right.reject());
  CHECK(ks_isotropic(tangent_coordinates(y, frame, 1.1), d).reject());
  // The norm is kept (y = ||x|| (w mu + sqrt(1 - w^2) v)).
  const std::vector<double> ratios = embpriv::row_norm_ratios(x.narrow(0, 0, 1000),
                                                              y.narrow(0, 0, 1000));
  for (double r : ratios) REQUIRE(std::fabs(r - 1.0) < 1e-6);
}
