#pragma once
// The theory checks of experiment type `bounds` at one setting (one mechanism at one d and
// epsilon): what the mechanism's theory predicts (mechanisms/mechanism.h: norm kept, cosine,
// dot-product factor, squared norm, Prop. 7.1) against simulation on random directions with
// random norms. Each check yields one CheckRow; interval checks get their verdict later, over
// the whole run (bounds_table.h: judge_intervals).
#include <ATen/core/Tensor.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mechanisms/registry.h"

namespace embpriv {

struct CheckRow {
  std::string check;      // e.g. "cosine_every_sample"
  std::string source;     // e.g. "vMF paper, Prop 3.1 / Thm 5.2"
  std::string mechanism;  // registry name
  std::string mechanism_config;  // the setting's mechanism map, as flow YAML
  std::int64_t d = 0;
  double epsilon = 0;
  double beta = 0;        // NaN where the mechanism has no beta
  double expected = 0;
  double measured = 0;
  double lo = 0;          // the interval the check uses (see `rule`)
  double hi = 0;
  std::string rule;       // how pass is decided, e.g. "expected in CI", "max |dev| <= tol"
  bool pass = false;
  // Interval checks: the standard error of `measured` (of the paired differences where the
  // expected value varies by row); NaN for exact checks.
  double standard_error = std::numeric_limits<double>::quiet_NaN();
};

// The random inputs of one dimension: directions with norms log-uniform in [0.25, 4] around the
// clip norm 1, and partners at cosine 0.2-0.9 (for the dot products of Thm 5.3).
struct BoundsInputs {
  at::Tensor x1, x2;
  std::vector<double> norms1, l1_norms1, dots12;  // ||x1|| (L2 and L1, the latter summed in index order)
};
BoundsInputs make_bounds_inputs(std::int64_t samples, std::int64_t d, std::uint64_t seed);

struct BoundsSetting {
  YAML::Node mechanism;  // the registry map (its epsilon is replaced by `epsilon`)
  std::string name;      // the mechanism's registry name
  std::int64_t d = 0;
  double epsilon = 0;
  double beta = std::numeric_limits<double>::quiet_NaN();
  // > 0: Prop. 7.1's setting, at the epsilon whose noise norm is this share of the clip norm.
  double noise_share = 0;
  std::uint64_t seed = 1;  // the run seed
  // The name in the setting's seed (the Prop. 7.1 setting keeps the seeds it always had).
  std::string label() const { return noise_share > 0 ? name + "_prop71" : name; }
};

// Runs every check the setting's theory has a closed form for. The predictions come from the
// default registry (the specification), the outputs from `registry` (which tests fill with
// deliberately broken mechanisms). A setting's draws depend on (seed, d, mechanism, epsilon,
// beta) only, not on the other settings of the run.
std::vector<CheckRow> run_setting_checks(const BoundsSetting& setting, const BoundsInputs& inputs,
                                         const MechanismRegistry& registry);

// The theory's E[cos(x, y)] of a mechanism map at (d, eps), as the checks compute it.
Prediction setting_cosine(const YAML::Node& mechanism, std::int64_t d, double epsilon);

// Tolerances of the exact (per-sample) checks. Outputs are float32: each coordinate of y is
// rounded with relative error <= 2^-24 (~6e-8), which moves ||y|| / ||x|| by at most 2^-24 and
// cos(x, y) by at most about 2 * 2^-24 (everything else is computed in double). The bounds
// below sit just above those worst cases; the largest deviations measured at d = 4096 were
// 8e-9 (norm) and 4e-9 (cosine).
inline constexpr double kNormRelativeTolerance = 1e-7;
inline constexpr double kCosineTolerance = 2.5e-7;

}  // namespace embpriv
