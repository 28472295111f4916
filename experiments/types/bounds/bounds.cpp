#include "experiments/types/bounds/bounds.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <ostream>
#include <sstream>

#include "core/progress.h"
#include "core/rng.h"
#include "data/synthetic_inputs.h"
#include "mechanisms/gaussian_calibration.h"
#include "metrics/intervals.h"
#include "metrics/running_stats.h"
#include "metrics/similarity.h"
#include "metrics/theory.h"

namespace embpriv {
namespace {

constexpr double kNoBeta = std::numeric_limits<double>::quiet_NaN();
// Inputs: norms log-uniform in [0.25, 4] around the clip norm 1; partners at cosine 0.2-0.9.
constexpr double kNormLo = 0.25, kNormHi = 4.0;
constexpr double kPartnerCosLo = 0.2, kPartnerCosHi = 0.9;

// The vMF paper's Cor. 5.2 table (beta = 1), as printed: eps, theta in degrees (one decimal),
// cos(theta) and the number of decimals printed for it.
struct Cor52Entry {
  double epsilon, theta_degrees, cosine;
  int cosine_decimals;
};
constexpr Cor52Entry kCor52Table[] = {{0.1, 84.3, 0.0995, 4}, {0.2, 78.7, 0.196, 3},
                                      {0.5, 63.4, 0.447, 3},  {1.0, 45.0, 0.707, 3},
                                      {2.0, 26.6, 0.894, 3},  {5.0, 11.3, 0.981, 3}};

double round_to(double value, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

// A per-setting seed that does not depend on which other settings the config lists, so
// `--dim 4096` reproduces the d = 4096 rows of the full grid.
std::uint64_t setting_seed(std::uint64_t run_seed, const std::string& setting,
                           const std::string& purpose) {
  return derive_seed(run_seed, fnv1a64(setting), purpose);
}

std::string setting_name(const std::string& mechanism, std::int64_t d, double eps, double beta) {
  std::ostringstream out;
  out.precision(17);
  out << mechanism << " d=" << d << " eps=" << eps << " beta=" << beta;
  return out.str();
}

YAML::Node mechanism_node(const std::string& name, double eps, double beta,
                          const BoundsConfig& config) {
  YAML::Node node;
  node["name"] = name;
  node["epsilon"] = eps;
  if (!std::isnan(beta)) node["beta"] = beta;
  if (name == "gaussian" || name == "npgaussian") node["delta"] = config.delta;
  if (name != "vmf" && name != "vmf_tangent") node["clip_norm"] = config.clip_norm;
  return node;
}

struct Setting {
  std::string mechanism;
  std::int64_t d;
  double epsilon, beta;
};

// Checks that are functions of the inputs and of one perturbed batch.
class BoundsRunner {
 public:
  BoundsRunner(const BoundsConfig& config, const MechanismRegistry& registry)
      : config_(config), registry_(registry) {}

  std::vector<CheckRow> run() {
    std::vector<Setting> settings;
    for (std::int64_t d : config_.dims) {
      for (double beta : config_.betas) {
        for (double eps : config_.epsilons) {
          settings.push_back({"vmf_tangent", d, eps, beta});
          settings.push_back({"vmf", d, eps, beta});
        }
      }
      for (double f : config_.vmf_kappa_over_d) {
        settings.push_back({"vmf", d, f * static_cast<double>(d), 1.0});
      }
      for (double eps : config_.epsilons) {
        for (const char* name : {"gaussian", "laplace", "npgaussian"}) {
          settings.push_back({name, d, eps, kNoBeta});
        }
      }
      settings.push_back({"npgaussian_prop71", d, 0.0, kNoBeta});
    }
    ProgressBar progress(static_cast<std::int64_t>(settings.size()), "settings");
    std::int64_t current_d = -1;
    for (const Setting& s : settings) {
      if (s.d != current_d) make_inputs(current_d = s.d);
      run_setting(s);
      progress.advance();
    }
    finalize_intervals();
    return std::move(rows_);
  }

 private:
  void make_inputs(std::int64_t d) {
    x1_ = random_directions(config_.samples, d, kNormLo, kNormHi,
                            derive_seed(config_.seed, static_cast<std::uint64_t>(d), "inputs"));
    x2_ = correlated_partners(x1_, kPartnerCosLo, kPartnerCosHi, kNormLo, kNormHi,
                              derive_seed(config_.seed, static_cast<std::uint64_t>(d), "partners"));
    norms1_ = row_norms(x1_);
    dots12_ = row_dots(x1_, x2_);
  }

  // Perturbs x1 and x2 with independent streams.
  std::pair<at::Tensor, at::Tensor> perturb_pair(const Mechanism& m, const std::string& setting) {
    return {m.perturb(x1_, {setting_seed(config_.seed, setting, "mechanism:x1"), 0}),
            m.perturb(x2_, {setting_seed(config_.seed, setting, "mechanism:x2"), 0})};
  }

  CheckRow row(const Setting& s, const char* check, const char* source) const {
    CheckRow r;
    r.check = check;
    r.source = source;
    r.mechanism = s.mechanism;
    r.d = s.d;
    r.epsilon = s.epsilon;
    r.beta = s.beta;
    return r;
  }

  // Thm 5.1 and Def. 7.3: ||y|| = ||x|| for every sample.
  void check_norm_kept(const Setting& s, const at::Tensor& y, const char* source) {
    const std::vector<double> ratios = row_norm_ratios(x1_, y);
    double worst = 0;
    for (double ratio : ratios) worst = std::max(worst, std::fabs(ratio - 1.0));
    CheckRow r = row(s, "norm_kept", source);
    r.expected = 0;
    r.measured = worst;
    r.lo = 0;
    r.hi = kNormRelativeTolerance;
    r.rule = "max |ratio-1| <= tol";
    r.pass = worst <= kNormRelativeTolerance;
    rows_.push_back(r);
  }

  // A mean with a normal CI whose width comes from the paired differences diff_i
  // (measured_i - expected_i): pass iff expected lies in measured +- z se(diff).
  void check_mean(CheckRow r, const std::vector<double>& measured,
                  const std::vector<double>& expected) {
    RunningStats m, e, diff;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      m.add(measured[i]);
      e.add(expected[i]);
      diff.add(measured[i] - expected[i]);
    }
    r.expected = e.mean();
    r.measured = m.mean();
    r.standard_error = diff.standard_error();
    r.rule = "expected in CI";
    rows_.push_back(r);  // interval and verdict are set by finalize_intervals()
  }

  void run_tangent(const Setting& s, const at::Tensor& y1, const at::Tensor& y2) {
    check_norm_kept(s, y1, "vMF paper, Thm 5.1");
    const double expected = expected_cosine_tangent(s.beta, s.epsilon);
    const std::vector<double> cosines = row_cosines(x1_, y1);
    RunningStats stats;
    double worst = 0;
    for (double c : cosines) {
      stats.add(c);
      worst = std::max(worst, std::fabs(c - expected));
    }
    CheckRow r = row(s, "cosine_every_sample", "vMF paper, Prop 3.1 / Thm 5.2");
    r.expected = expected;
    r.measured = stats.mean();
    r.lo = stats.min();
    r.hi = stats.max();
    r.rule = "max |cos-expected| <= tol";
    r.pass = worst <= kCosineTolerance;
    rows_.push_back(r);
    for (const Cor52Entry& entry : kCor52Table) {
      if (s.beta != 1.0 || entry.epsilon != s.epsilon) continue;
      CheckRow c = row(s, "cor52_cosine", "vMF paper, Cor 5.2 table");
      c.expected = entry.cosine;
      c.measured = c.lo = c.hi = round_to(stats.mean(), entry.cosine_decimals);
      c.rule = "equal to printed digits";
      c.pass = c.measured == c.expected;
      rows_.push_back(c);
      CheckRow a = row(s, "cor52_angle_degrees", "vMF paper, Cor 5.2 table");
      a.expected = entry.theta_degrees;
      a.measured = a.lo = a.hi = round_to(std::acos(stats.mean()) * 180.0 / M_PI, 1);
      a.rule = "equal to printed digits";
      a.pass = a.measured == a.expected;
      rows_.push_back(a);
    }
    check_dot_product(s, y1, y2, dot_product_factor_tangent(s.beta, s.epsilon),
                      "vMF paper, Thm 5.3");
  }

  void check_dot_product(const Setting& s, const at::Tensor& y1, const at::Tensor& y2,
                         double factor, const char* source) {
    std::vector<double> expected(dots12_.size());
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = factor * dots12_[i];
    check_mean(row(s, "dot_product", source), row_dots(y1, y2), expected);
  }

  void run_vmf(const Setting& s, const at::Tensor& y1, const at::Tensor& y2) {
    const double kappa = s.epsilon / s.beta;
    check_norm_kept(s, y1, "exact vMF, norm restored");
    check_mean(row(s, "mean_cosine", "E[mu.z] = A_d(kappa) (Wood 1994)"), row_cosines(x1_, y1),
               std::vector<double>(static_cast<std::size_t>(config_.samples),
                                   vmf_mean_resultant(s.d, kappa)));
    check_dot_product(s, y1, y2, dot_product_factor_vmf(s.d, kappa),
                      "Thm 5.3 for vMF: factor A_d(kappa)^2");
  }

  // Thm 5.4 and its Laplace analogue: E||y||^2 = expected_squared_norm(||clip(x)||^2).
  template <class ExpectedSquaredNorm>
  void run_norm_inflation(const Setting& s, const at::Tensor& y,
                          ExpectedSquaredNorm expected_squared_norm, bool l1_clip,
                          const char* source) {
    const std::vector<double> norms_y = row_norms(y);
    std::vector<double> measured(norms_y.size()), expected(norms_y.size());
    const at::Tensor x = x1_.contiguous();
    const float* data = x.data_ptr<float>();
    for (std::size_t i = 0; i < measured.size(); ++i) {
      double norm = norms1_[i];
      if (l1_clip) {
        norm = 0;  // the L1 norm, summed in index order
        for (std::int64_t j = 0; j < s.d; ++j) norm += std::fabs(data[i * s.d + j]);
      }
      const double scale = norm > config_.clip_norm ? config_.clip_norm / norm : 1.0;
      const double clipped = scale * norms1_[i];
      measured[i] = norms_y[i] * norms_y[i];
      expected[i] = expected_squared_norm(clipped * clipped);
    }
    check_mean(row(s, "norm_inflation", source), measured, expected);
  }

  // Prop. 7.1: npgaussian's angle is random and depends on ||x||. Shown at the eps whose
  // analytic sigma puts the noise norm sigma sqrt(d) at half the clip norm, where both effects
  // are large; at the eps of Cor. 5.2 the noise swamps every direction (E cos ~ 1e-3).
  void run_prop71(Setting s) {
    const double sigma = 0.5 * config_.clip_norm / std::sqrt(static_cast<double>(s.d));
    s.mechanism = "npgaussian";
    s.epsilon = analytic_gaussian_epsilon(sigma, config_.delta, 2.0 * config_.clip_norm);
    YAML::Node node = mechanism_node("npgaussian", s.epsilon, kNoBeta, config_);
    node["calibration"] = "analytic";
    const auto mechanism = registry_.make(node);
    const std::string name = setting_name("npgaussian_prop71", s.d, s.epsilon, s.beta);
    const at::Tensor y =
        mechanism->perturb(x1_, {setting_seed(config_.seed, name, "mechanism:x1"), 0});
    const std::vector<double> cosines = row_cosines(x1_, y);
    RunningStats all, small, large;
    for (std::size_t i = 0; i < cosines.size(); ++i) {
      all.add(cosines[i]);
      if (norms1_[i] <= 0.5) small.add(cosines[i]);          // lowest quarter of log-uniform
      if (norms1_[i] >= config_.clip_norm) large.add(cosines[i]);  // clipped to C
    }
    CheckRow varies = row(s, "angle_varies", "vMF paper, Prop 7.1");
    varies.expected = 0;  // Algorithm 1 would give a spread of 0
    varies.measured = all.standard_deviation();
    varies.lo = 100 * kCosineTolerance;
    varies.hi = std::numeric_limits<double>::infinity();
    varies.rule = "sd(cos) > 100 tol";
    varies.pass = varies.measured > varies.lo;
    rows_.push_back(varies);
    CheckRow depends = row(s, "angle_depends_on_norm", "vMF paper, Prop 7.1");
    // Large-d approximation cos ~ r / sqrt(r^2 + d sigma^2) at r = C and r = 0.35 C (the
    // geometric middle of the small group), shown for orientation only.
    auto approx = [&](double r) { return r / std::sqrt(r * r + s.d * sigma * sigma); };
    depends.expected = approx(config_.clip_norm) - approx(std::sqrt(0.125) * config_.clip_norm);
    depends.measured = large.mean() - small.mean();
    depends.standard_error = std::hypot(large.standard_error(), small.standard_error());
    depends.rule = "CI of mean cos(||x||>=C) - mean cos(||x||<=C/2) > 0";
    rows_.push_back(depends);
  }

  void run_setting(const Setting& s) {
    if (s.mechanism == "npgaussian_prop71") return run_prop71(s);
    const auto mechanism = registry_.make(mechanism_node(s.mechanism, s.epsilon, s.beta, config_));
    const std::string name = setting_name(s.mechanism, s.d, s.epsilon, s.beta);
    if (s.mechanism == "vmf_tangent" || s.mechanism == "vmf") {
      const auto [y1, y2] = perturb_pair(*mechanism, name);
      return s.mechanism == "vmf" ? run_vmf(s, y1, y2) : run_tangent(s, y1, y2);
    }
    const at::Tensor y =
        mechanism->perturb(x1_, {setting_seed(config_.seed, name, "mechanism:x1"), 0});
    if (s.mechanism == "gaussian") {
      const double sigma = gaussian_sigma(GaussianCalibration::analytic, s.epsilon,
                                          config_.delta, 2.0 * config_.clip_norm);
      run_norm_inflation(
          s, y, [&](double sq) { return gaussian_expected_squared_norm(sq, s.d, sigma); }, false,
          "vMF paper, Thm 5.4");
    } else if (s.mechanism == "laplace") {
      const double b = 2.0 * config_.clip_norm / s.epsilon;  // b = Delta1 / eps, Delta1 = 2C
      run_norm_inflation(
          s, y, [&](double sq) { return laplace_expected_squared_norm(sq, s.d, b); }, true,
          "Thm 5.4 analogue: + 2 d b^2");
    } else {
      check_norm_kept(s, y, "vMF paper, Def 7.3");
    }
  }

  // Bonferroni over the m interval checks: each at level 1 - (1 - confidence) / m.
  void finalize_intervals() {
    std::size_t m = 0;
    for (const CheckRow& r : rows_) m += !std::isnan(r.standard_error);
    if (m == 0) return;
    const double level = 1.0 - (1.0 - config_.confidence) / static_cast<double>(m);
    const double z = normal_two_sided_quantile(level);
    for (CheckRow& r : rows_) {
      if (std::isnan(r.standard_error)) continue;
      r.lo = r.measured - z * r.standard_error;
      r.hi = r.measured + z * r.standard_error;
      r.pass = r.rule == "expected in CI" ? (r.lo <= r.expected && r.expected <= r.hi) : r.lo > 0;
    }
  }

  const BoundsConfig& config_;
  const MechanismRegistry& registry_;
  at::Tensor x1_, x2_;
  std::vector<double> norms1_, dots12_;
  std::vector<CheckRow> rows_;
};

std::string format_number(double value) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

}  // namespace

std::vector<CheckRow> run_bounds(const BoundsConfig& config, const MechanismRegistry& registry) {
  config.validate();
  if (config.threads > 0) at::set_num_threads(config.threads);
  return BoundsRunner(config, registry).run();
}

ResultsTable bounds_table(const std::vector<CheckRow>& rows) {
  std::vector<std::string> check, source, mechanism, rule;
  std::vector<std::int64_t> d, pass;
  std::vector<double> epsilon, beta, expected, measured, lo, hi, standard_error;
  for (const CheckRow& r : rows) {
    check.push_back(r.check);
    source.push_back(r.source);
    mechanism.push_back(r.mechanism);
    d.push_back(r.d);
    epsilon.push_back(r.epsilon);
    beta.push_back(r.beta);
    expected.push_back(r.expected);
    measured.push_back(r.measured);
    lo.push_back(r.lo);
    hi.push_back(r.hi);
    standard_error.push_back(r.standard_error);
    rule.push_back(r.rule);
    pass.push_back(r.pass ? 1 : 0);
  }
  ResultsTable table;
  table.columns = {{"check", check},       {"source", source},     {"mechanism", mechanism},
                   {"d", d},               {"epsilon", epsilon},   {"beta", beta},
                   {"expected", expected}, {"measured", measured}, {"interval_lo", lo},
                   {"interval_hi", hi},    {"standard_error", standard_error},
                   {"rule", rule},         {"pass", pass}};
  return table;
}

void print_bounds_table(std::ostream& out, const std::vector<CheckRow>& rows) {
  out << std::left << std::setw(22) << "check" << std::setw(31) << "source" << std::setw(12)
      << "mechanism" << std::setw(6) << "d" << std::setw(10) << "eps" << std::setw(6) << "beta"
      << std::setw(13) << "expected" << std::setw(13) << "measured" << std::setw(27)
      << "interval" << "result\n";
  std::size_t passed = 0;
  for (const CheckRow& r : rows) {
    passed += r.pass;
    out << std::setw(22) << r.check << std::setw(31) << r.source.substr(0, 30) << std::setw(12)
        << r.mechanism << std::setw(6) << r.d << std::setw(10) << format_number(r.epsilon)
        << std::setw(6) << format_number(r.beta) << std::setw(13) << format_number(r.expected)
        << std::setw(13) << format_number(r.measured) << std::setw(27)
        << ("[" + format_number(r.lo) + ", " + format_number(r.hi) + "]")
        << (r.pass ? "PASS" : "FAIL") << "\n";
  }
  out << "bounds: " << passed << " of " << rows.size() << " checks pass\n";
}

}  // namespace embpriv
