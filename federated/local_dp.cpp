#include "federated/local_dp.h"

#include <ATen/ATen.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/rng.h"

namespace embpriv {

ClipTarget parse_clip_target(std::string_view name) {
  if (name == "parameters") return ClipTarget::parameters;
  if (name == "update") return ClipTarget::update;
  throw Error("unknown clip target '" + std::string(name) + "'; valid: parameters, update");
}

const char* to_string(ClipTarget target) { return target == ClipTarget::parameters ? "parameters" : "update"; }

at::Tensor clip_to_norm(const at::Tensor& v, double theta) {
  EMBPRIV_CHECK(theta > 0 && std::isfinite(theta), "local DP: the clipping norm theta must be > 0, got " << theta);
  const double norm = v.to(at::kDouble).norm().item<double>();
  EMBPRIV_CHECK(std::isfinite(norm), "local DP: the vector to clip holds NaN or infinity");
  return v * (theta / std::max(theta, norm));
}

double local_dp_sigma(const LocalDpOptions& o) {
  if (!o.enabled) return 0.0;
  return gaussian_sigma(o.calibration, o.epsilon, o.delta, 2.0 * o.clip_norm);  // Delta2 = 2 theta
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

}  // namespace embpriv
