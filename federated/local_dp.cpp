#include "federated/local_dp.h"

#include <ATen/ATen.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "accounting/renyi_dp.h"
#include "core/rng.h"
#include "federated/protocol.h"

namespace embpriv {

ClipTarget parse_clip_target(std::string_view name) {
  if (name == "parameters") return ClipTarget::parameters;
  if (name == "update") return ClipTarget::update;
  throw Error("unknown clip target '" + std::string(name) + "'; valid: parameters, update");
}

const char* to_string(ClipTarget target) { return target == ClipTarget::parameters ? "parameters" : "update"; }

NoiseCalibration parse_noise_calibration(std::string_view name) {
  if (name == "classic") return NoiseCalibration::classic;
  if (name == "analytic") return NoiseCalibration::analytic;
  if (name == "rdp") return NoiseCalibration::rdp;
  throw Error("unknown calibration '" + std::string(name) + "'; valid: classic, analytic, rdp");
}

const char* to_string(NoiseCalibration calibration) {
  switch (calibration) {
    case NoiseCalibration::analytic: return "analytic";
    case NoiseCalibration::rdp: return "rdp";
    case NoiseCalibration::classic: break;
  }
  return "classic";
}

EpsilonBudget parse_epsilon_budget(std::string_view name) {
  if (name == "round") return EpsilonBudget::round;
  if (name == "run") return EpsilonBudget::run;
  throw Error("unknown eps budget '" + std::string(name) + "'; valid: round, run");
}

const char* to_string(EpsilonBudget budget) { return budget == EpsilonBudget::round ? "round" : "run"; }

double calibrated_sigma(NoiseCalibration calibration, double epsilon, double delta, double l2_sensitivity,
                        std::int64_t releases) {
  EMBPRIV_CHECK(epsilon > 0 && std::isfinite(epsilon), "local DP: eps must be > 0, got " << epsilon);
  EMBPRIV_CHECK(delta > 0 && delta < 1, "local DP: delta must be in (0, 1), got " << delta);
  EMBPRIV_CHECK(releases >= 1, "local DP: releases must be >= 1, got " << releases);
  EMBPRIV_CHECK(l2_sensitivity > 0, "local DP: the sensitivity must be > 0, got " << l2_sensitivity);
  const double k = static_cast<double>(releases);
  switch (calibration) {
    case NoiseCalibration::classic:
      return std::sqrt(k) * classic_gaussian_sigma(epsilon, delta, l2_sensitivity);
    case NoiseCalibration::analytic:
      return std::sqrt(k) * analytic_gaussian_sigma(epsilon, delta, l2_sensitivity);
    case NoiseCalibration::rdp:
      break;
  }
  const auto eps_of = [&](double multiplier) { return gaussian_rdp_account(multiplier, releases, delta).epsilon; };
  double low = 1e-3, high = 1.0;
  while (eps_of(high) > epsilon) high *= 2;  // eps falls as the noise grows
  for (int i = 0; i < 100 && high - low > 1e-12 * high; ++i) {
    const double mid = 0.5 * (low + high);
    (eps_of(mid) > epsilon ? low : high) = mid;
  }
  return high * l2_sensitivity;
}

at::Tensor clip_to_norm(const at::Tensor& v, double theta) {
  EMBPRIV_CHECK(theta > 0 && std::isfinite(theta), "local DP: the clipping norm theta must be > 0, got " << theta);
  // The squares summed in index order in one thread: Tensor::norm's last bit depends on the
  // thread count (docs/performance.md, "One result per seed").
  const at::Tensor d = v.to(at::kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  double squares = 0;
  for (std::int64_t i = 0; i < d.numel(); ++i) squares += p[i] * p[i];
  const double norm = std::sqrt(squares);
  EMBPRIV_CHECK(std::isfinite(norm), "local DP: the vector to clip holds NaN or infinity");
  return v * (theta / std::max(theta, norm));
}

double local_dp_sigma(const LocalDpOptions& o) {
  if (!o.enabled) return 0.0;
  return calibrated_sigma(o.calibration, o.epsilon, o.delta, 2.0 * o.clip_norm, 1);  // Delta2 = 2 theta
}

at::Tensor release_local_model(const at::Tensor& local, const at::Tensor& global, const LocalDpOptions& o,
                               std::uint64_t seed) {
  return release_local_model(local, global, o, local_dp_sigma(o), seed);
}

at::Tensor release_local_model(const at::Tensor& local, const at::Tensor& global, const LocalDpOptions& o,
                               double sigma, std::uint64_t seed) {
  EMBPRIV_CHECK(local.dim() == 1 && local.sizes() == global.sizes(),
                "local DP: local and global parameters must be vectors of one size, got " << local.sizes() << " and "
                                                                                           << global.sizes());
  if (!o.enabled) return local.clone();
  const at::Tensor clipped = o.clip == ClipTarget::parameters ? clip_to_norm(local, o.clip_norm)
                                                              : global + clip_to_norm(local - global, o.clip_norm);
  EMBPRIV_CHECK(sigma >= 0 && std::isfinite(sigma), "local DP: sigma must be finite and >= 0, got " << sigma);
  at::Tensor noise = at::empty({local.size(0)}, at::kDouble);
  Rng rng(seed, 0);
  double* n = noise.data_ptr<double>();
  for (std::int64_t i = 0; i < noise.size(0); ++i) n[i] = sigma * rng.normal();
  return (clipped.to(at::kDouble) + noise).to(local.scalar_type());
}

namespace {

// Local DP (PrivateAI, FedAvg, FedAdam, central): eq. (4) releases, Delta2 = 2 theta, one a
// round, aggregated by FedAvg or FedAdam (eq. (5)).
class LocalDpProtocol final : public Protocol {
 public:
  LocalDpProtocol(const FederatedOptions& o, Aggregator aggregator)
      : Protocol(o, calibrated_noise(o.dp, 2.0 * o.dp.clip_norm, o.rounds)), aggregator_(aggregator, o.fedadam) {}

  at::Tensor aggregate(const at::Tensor& global, const std::vector<at::Tensor>& released,
                       RoundRecord& record) override {
    record.kept_releases = static_cast<std::int64_t>(released.size());
    return aggregator_.step(global, released);
  }

 private:
  ServerAggregator aggregator_;
};

}  // namespace

std::unique_ptr<Protocol> make_local_dp_protocol(const FederatedOptions& options, Aggregator aggregator) {
  return std::make_unique<LocalDpProtocol>(options, aggregator);
}

}  // namespace embpriv
