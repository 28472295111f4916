// The theory checks of `embpriv bounds` at CI sizes: they pass on the real mechanisms and fail
// on mechanisms with a wrong formula.
#include "tests/catch.h"
#include <set>

#include "experiments/types/bounds/bounds.h"
#include "mechanisms/gaussian.h"
#include "mechanisms/vmf.h"
#include "mechanisms/vmf_tangent.h"

using namespace embpriv;

namespace {

BoundsConfig small_config() {
  BoundsConfig config;
  config.dims = {64, 512};
  config.samples = 4000;
  config.seed = 7;
  config.plot.clear();
  return config;
}

// The names of the checks that failed, as "mechanism/check".
std::set<std::string> failures(const std::vector<CheckRow>& rows) {
  std::set<std::string> out;
  for (const CheckRow& r : rows) {
    if (!r.pass) out.insert(r.mechanism + "/" + r.check);
  }
  return out;
}

}  // namespace

TEST_CASE("every theory check passes on the real mechanisms", "[bounds]") {
  const std::vector<CheckRow> rows = run_bounds(small_config(), default_mechanism_registry());
  CHECK(failures(rows).empty());
  std::set<std::string> checks;
  for (const CheckRow& r : rows) checks.insert(r.mechanism + "/" + r.check);
  // Every theorem of the issue is covered.
  for (const char* expected :
       {"vmf_tangent/norm_kept", "vmf_tangent/cosine_every_sample", "vmf_tangent/cor52_cosine",
        "vmf_tangent/cor52_angle_degrees", "vmf_tangent/dot_product", "vmf/norm_kept",
        "vmf/mean_cosine", "vmf/dot_product", "gaussian/norm_inflation",
        "laplace/norm_inflation", "npgaussian/norm_kept", "npgaussian/angle_varies",
        "npgaussian/angle_depends_on_norm"}) {
    CHECK(checks.count(expected) == 1);
  }
  // 2 dims x (3 betas x 6 eps x 2 mechanisms + 3 vmf kappas + 6 eps x 3 mechanisms + Prop 7.1).
  CHECK(rows.size() == 2 * (3 * 6 * (3 + 3) + 6 * 2 + 3 * 3 + 6 * 3 + 2));
}

TEST_CASE("a wrong lambda in Algorithm 1 fails the cosine and table checks", "[bounds]") {
  MechanismRegistry registry = default_mechanism_registry();
  // lambda = 1.05 beta / eps instead of beta / eps.
  registry.add("vmf_tangent", {{"epsilon", "beta", "alpha"}, "broken", [](const MechanismParams& p) {
                 return std::make_unique<VmfTangentMechanism>(p.number("epsilon") / 1.05,
                                                              p.number_or("beta", 1.0));
               }});
  const std::set<std::string> failed = failures(run_bounds(small_config(), registry));
  CHECK(failed.count("vmf_tangent/cosine_every_sample") == 1);
  CHECK(failed.count("vmf_tangent/cor52_cosine") == 1);
  CHECK(failed.count("vmf/mean_cosine") == 0);  // the other mechanisms still pass
}

TEST_CASE("a vMF sampler that ignores epsilon fails the mean-cosine check", "[bounds]") {
  MechanismRegistry registry = default_mechanism_registry();
  registry.add("vmf", {{"epsilon", "beta", "alpha"}, "broken", [](const MechanismParams& p) {
                 return std::make_unique<VmfMechanism>(1.0, p.number_or("beta", 1.0));
               }});
  const std::set<std::string> failed = failures(run_bounds(small_config(), registry));
  CHECK(failed.count("vmf/mean_cosine") == 1);
  CHECK(failed.count("vmf/dot_product") == 1);
}

TEST_CASE("a Gaussian mechanism that forgets to clip fails the norm-inflation check",
          "[bounds]") {
  MechanismRegistry registry = default_mechanism_registry();
  registry.add("gaussian", {{"epsilon", "delta", "clip_norm", "alpha"}, "broken",
                            [](const MechanismParams& p) {
                              return std::make_unique<GaussianMechanism>(
                                  p.number("epsilon"), p.number("delta"), 1e9,
                                  GaussianCalibration::analytic);
                            }});
  const std::set<std::string> failed = failures(run_bounds(small_config(), registry));
  CHECK(failed.count("gaussian/norm_inflation") == 1);
}
