#include "accounting/privacy_loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "core/gaussian_privacy_profile.h"

namespace embpriv {
namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// log(e^a + e^b), exact when either is -inf.
double log_add(double a, double b) {
  if (a == kMinusInf) return b;
  if (b == kMinusInf) return a;
  const double hi = std::max(a, b), lo = std::min(a, b);
  return hi + std::log1p(std::exp(lo - hi));
}

// log(1 - e^a) for a <= 0.
double log1m_exp(double a) { return a > -0.693 ? std::log(-std::expm1(a)) : std::log1p(-std::exp(a)); }

class GaussianLoss final : public PrivacyLoss {
 public:
  explicit GaussianLoss(double sigma) : sigma_(sigma) {}
  LossTails tails(double v) const override {
    // L > v <=> x < x_v = 1/2 - sigma^2 v; under P x ~ N(0, sigma^2), under Q x ~ N(1, sigma^2).
    // In standard units: x_v / sigma = 1 / (2 sigma) - sigma v.
    const double z = 0.5 / sigma_ - sigma_ * v, z_q = z - 1 / sigma_;
    return {log_normal_cdf(z), log_normal_cdf(-z), log_normal_cdf(z_q), log_normal_cdf(-z_q)};
  }
  std::string name() const override {
    std::ostringstream s;
    s << "Gaussian(sigma " << sigma_ << ")";
    return s.str();
  }

 private:
  double sigma_;
};

class SubsampledGaussianLoss final : public PrivacyLoss {
 public:
  SubsampledGaussianLoss(double sigma, double q, Neighbour neighbour)
      : sigma_(sigma), q_(q), log_q_(std::log(q)), log_1mq_(std::log1p(-q)), neighbour_(neighbour) {}

  LossTails tails(double v) const override {
    // `remove`: L(x) = log(1 - q + q e^((2x - 1) / (2 sigma^2))) increases in x from log(1 - q);
    // `add`: L(x) = -(the same), under P = N(0, sigma^2), decreasing to -log(1 - q).
    const double w = neighbour_ == Neighbour::remove ? v : -v;
    if (!(w > log_1mq_)) {
      // remove: every loss exceeds v; add: no loss exceeds v.
      return neighbour_ == Neighbour::remove ? LossTails{0, kMinusInf, 0, kMinusInf}
                                             : LossTails{kMinusInf, 0, kMinusInf, 0};
    }
    // The x at which the mixture ratio 1 - q + q e^((2x - 1) / (2 sigma^2)) equals e^w:
    // x_w = sigma^2 (log(e^w - 1 + q) - log q) + 1/2, with log(e^w - (1 - q)) computed without
    // overflow or cancellation.
    const double log_excess = w > 30 ? w + std::log1p(-std::exp(log_1mq_ - w)) : std::log(std::expm1(w) + q_);
    const double z = sigma_ * (log_excess - log_q_) + 0.5 / sigma_;  // x_w / sigma
    const double z1 = z - 1 / sigma_;                                 // (x_w - 1) / sigma
    // The two components above and below x_w.
    const double n0_above = log_normal_cdf(-z), n0_below = log_normal_cdf(z);
    const double n1_above = log_normal_cdf(-z1), n1_below = log_normal_cdf(z1);
    const double mix_above = log_add(log_1mq_ + n0_above, log_q_ + n1_above);
    const double mix_below = log_add(log_1mq_ + n0_below, log_q_ + n1_below);
    if (neighbour_ == Neighbour::remove) {
      // L > v <=> x > x_w; P the mixture, Q = N(0, sigma^2).
      return {mix_above, mix_below, n0_above, n0_below};
    }
    // L > v <=> x < x_w; P = N(0, sigma^2), Q the mixture.
    return {n0_below, n0_above, mix_below, mix_above};
  }
  std::string name() const override {
    std::ostringstream s;
    s << "Poisson-subsampled Gaussian(sigma " << sigma_ << ", q " << q_ << ", "
      << (neighbour_ == Neighbour::remove ? "remove" : "add") << ")";
    return s.str();
  }

 private:
  double sigma_, q_, log_q_, log_1mq_;
  Neighbour neighbour_;
};

class LaplaceLoss final : public PrivacyLoss {
 public:
  explicit LaplaceLoss(double epsilon) : epsilon_(epsilon), scale_(1 / epsilon) {}
  LossTails tails(double v) const override {
    if (v >= epsilon_) return {kMinusInf, 0, kMinusInf, 0};
    if (v < -epsilon_) return {0, kMinusInf, 0, kMinusInf};
    // L > v <=> x < x_v = (1 - v b) / 2 in (0, 1]; P = Lap(0, b): P(x < x_v) = 1 - e^(-x_v / b) / 2;
    // Q = Lap(1, b): Q(x < x_v) = e^((x_v - 1) / b) / 2.
    const double x = 0.5 * (1 - v * scale_);
    const double log_p_at_most = std::log(0.5) - x / scale_;
    const double log_q_above = std::log(0.5) + (x - 1) / scale_;
    return {log1m_exp(log_p_at_most), log_p_at_most, log_q_above, log1m_exp(log_q_above)};
  }
  std::string name() const override {
    std::ostringstream s;
    s << "Laplace(eps " << epsilon_ << ")";
    return s.str();
  }

 private:
  double epsilon_, scale_;
};

}  // namespace

std::unique_ptr<PrivacyLoss> gaussian_privacy_loss(double noise_multiplier) {
  EMBPRIV_CHECK(std::isfinite(noise_multiplier) && noise_multiplier > 0,
                "accountant: sigma must be finite and > 0, got " << noise_multiplier);
  return std::make_unique<GaussianLoss>(noise_multiplier);
}

std::unique_ptr<PrivacyLoss> subsampled_gaussian_privacy_loss(double noise_multiplier, double sampling_rate,
                                                              Neighbour neighbour) {
  EMBPRIV_CHECK(std::isfinite(noise_multiplier) && noise_multiplier > 0,
                "accountant: sigma must be finite and > 0, got " << noise_multiplier);
  EMBPRIV_CHECK(sampling_rate > 0 && sampling_rate < 1,
                "accountant: the subsampled Gaussian needs a sampling rate in (0, 1), got " << sampling_rate);
  return std::make_unique<SubsampledGaussianLoss>(noise_multiplier, sampling_rate, neighbour);
}

std::unique_ptr<PrivacyLoss> laplace_privacy_loss(double epsilon) {
  EMBPRIV_CHECK(std::isfinite(epsilon) && epsilon > 0, "accountant: the Laplace eps must be finite and > 0, got " << epsilon);
  return std::make_unique<LaplaceLoss>(epsilon);
}

}  // namespace embpriv
