#pragma once
// `embpriv bounds`: numerical checks of the vMF paper's theorems by simulation on random
// directions with random norms. Each check yields one row: what was checked, the theorem, the
// expected value, the measured value, an interval and PASS/FAIL.
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

#include "experiments/types/bounds/bounds_config.h"
#include "experiments/results/results_table.h"
#include "mechanisms/registry.h"

namespace embpriv {

struct CheckRow {
  std::string check;      // e.g. "cosine_every_sample"
  std::string source;     // e.g. "vMF paper, Prop 3.1 / Thm 5.2"
  std::string mechanism;  // registry name
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

// Runs every check of the config. The config's confidence (0.999) is family-wise: each of the
// m interval checks of the run uses level 1 - (1 - confidence) / m (Bonferroni), so a correct
// implementation fails any interval check with probability at most 1 - confidence. Mechanisms are built by `registry` (tests swap in broken
// ones to show that the checks catch a wrong formula).
std::vector<CheckRow> run_bounds(const BoundsConfig& config, const MechanismRegistry& registry);

// The rows as the flat table stored under /table (one column per field; `pass` as 0/1).
ResultsTable bounds_table(const std::vector<CheckRow>& rows);

// Human-readable table: check, source, expected, measured, interval, PASS/FAIL.
void print_bounds_table(std::ostream& out, const std::vector<CheckRow>& rows);

// Tolerances of the exact (per-sample) checks. Outputs are float32: each coordinate of y is
// rounded with relative error <= 2^-24 (~6e-8), which moves ||y|| / ||x|| by at most 2^-24 and
// cos(x, y) by at most about 2 * 2^-24 (everything else is computed in double). The bounds
// below sit just above those worst cases; the largest deviations measured at d = 4096 were
// 8e-9 (norm) and 4e-9 (cosine).
inline constexpr double kNormRelativeTolerance = 1e-7;
inline constexpr double kCosineTolerance = 2.5e-7;

}  // namespace embpriv
