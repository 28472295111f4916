// The theory checks of experiment type bounds (configs/bounds.yaml) at CI sizes: they pass on
// the real mechanisms and fail on mechanisms with a wrong formula; shards merge into the run.
#include "core/source_dir.h"
#include "tests/catch.h"
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "experiments/engine/runner.h"
#include "experiments/types/bounds/bounds_table.h"
#include "experiments/types/registry.h"
#include "mechanisms/gaussian.h"
#include "mechanisms/vmf.h"
#include "mechanisms/vmf_tangent.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

const std::string kConfig = std::string(embpriv::source_dir()) + "/configs/bounds.yaml";
const std::vector<std::string> kSmall = {"sweep.data.dim=[64, 512]", "data.samples=4000", "seed=7"};

struct BoundsRun {
  int status = 0;
  ResultsTable table;
  std::vector<CheckRow> checks;
};

// configs/bounds.yaml at CI sizes with `registry`'s mechanisms (the whole run, or one shard).
BoundsRun run_bounds(const MechanismRegistry& registry, const std::string& out, Shard shard = {}) {
  RunOptions options;
  options.config_path = kConfig;
  options.overrides = kSmall;
  options.out = out;
  options.overwrite = true;
  options.plot = false;
  options.shard = shard;
  std::ostringstream log;
  BoundsRun run;
  run.status = run_experiment(options, default_experiment_registry(), registry, log);
  run.table = read_results_h5(out);
  run.checks = checks_from_table(run.table);
  return run;
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
  const TempDir dir("embpriv_bounds_test");
  const BoundsRun run = run_bounds(default_mechanism_registry(), dir / "b.h5");
  CHECK(run.status == 0);
  CHECK(failures(run.checks).empty());
  std::set<std::string> checks;
  for (const CheckRow& r : run.checks) checks.insert(r.mechanism + "/" + r.check);
  // Every theorem of the issue is covered.
  for (const char* expected :
       {"vmf_tangent/norm_kept", "vmf_tangent/cosine_every_sample", "vmf_tangent/cor52_cosine",
        "vmf_tangent/cor52_angle_degrees", "vmf_tangent/dot_product", "vmf/norm_kept",
        "vmf/mean_cosine", "vmf/dot_product", "gaussian/norm_inflation",
        "laplace/norm_inflation", "npgaussian/norm_kept", "npgaussian/angle_varies",
        "npgaussian/angle_depends_on_norm"}) {
    CHECK(checks.count(expected) == 1);
  }
  // 2 dims x (3 betas x 6 eps x 2 mechanisms + 3 vmf kappas + 6 eps x 3 mechanisms + Prop 7.1):
  // Algorithm 1 and vMF have 3 checks each, Algorithm 1 2 more at beta 1 (Cor. 5.2), vMF at
  // kappa = f d 3, the others 1, the Prop. 7.1 setting 2.
  CHECK(run.checks.size() == 2 * (3 * 6 * (3 + 3) + 6 * 2 + 3 * 3 + 6 * 3 + 2));
  // Every interval check was judged once the run was complete.
  for (const CheckRow& r : run.checks) CHECK_FALSE(std::isnan(r.lo));
}

TEST_CASE("a wrong lambda in Algorithm 1 fails the cosine and table checks", "[bounds]") {
  const TempDir dir("embpriv_bounds_test");
  MechanismRegistry registry = default_mechanism_registry();
  // lambda = 1.05 beta / eps instead of beta / eps.
  registry.add("vmf_tangent", {{"epsilon", "beta", "alpha"}, "broken", [](const MechanismParams& p) {
                 return std::make_unique<VmfTangentMechanism>(p.number("epsilon") / 1.05,
                                                              p.number_or("beta", 1.0));
               }});
  const BoundsRun run = run_bounds(registry, dir / "b.h5");
  const std::set<std::string> failed = failures(run.checks);
  CHECK(run.status == 1);
  CHECK(failed.count("vmf_tangent/cosine_every_sample") == 1);
  CHECK(failed.count("vmf_tangent/cor52_cosine") == 1);
  CHECK(failed.count("vmf/mean_cosine") == 0);  // the other mechanisms still pass
}

TEST_CASE("a vMF sampler that ignores epsilon fails the mean-cosine check", "[bounds]") {
  const TempDir dir("embpriv_bounds_test");
  MechanismRegistry registry = default_mechanism_registry();
  registry.add("vmf", {{"epsilon", "beta", "alpha"}, "broken", [](const MechanismParams& p) {
                 return std::make_unique<VmfMechanism>(1.0, p.number_or("beta", 1.0));
               }});
  const std::set<std::string> failed = failures(run_bounds(registry, dir / "b.h5").checks);
  CHECK(failed.count("vmf/mean_cosine") == 1);
  CHECK(failed.count("vmf/dot_product") == 1);
}

TEST_CASE("a Gaussian mechanism that forgets to clip fails the norm-inflation check",
          "[bounds]") {
  const TempDir dir("embpriv_bounds_test");
  MechanismRegistry registry = default_mechanism_registry();
  registry.add("gaussian", {{"epsilon", "delta", "clip_norm", "alpha"}, "broken",
                            [](const MechanismParams& p) {
                              return std::make_unique<GaussianMechanism>(
                                  p.number("epsilon"), p.number("delta"), 1e9,
                                  GaussianCalibration::analytic);
                            }});
  const std::set<std::string> failed = failures(run_bounds(registry, dir / "b.h5").checks);
  CHECK(failed.count("gaussian/norm_inflation") == 1);
}

TEST_CASE("two shards of the bounds run merge into the single run's table, verdicts included",
          "[bounds][engine]") {
  const TempDir dir("embpriv_bounds_shards_test");
  const MechanismRegistry& registry = default_mechanism_registry();
  const BoundsRun whole = run_bounds(registry, dir / "whole.h5");
  const BoundsRun first = run_bounds(registry, dir / "s1.h5", parse_shard("1/2"));
  run_bounds(registry, dir / "s2.h5", parse_shard("2/2"));
  // A shard alone cannot judge the interval checks: they need every row.
  std::size_t unjudged = 0;
  for (const CheckRow& r : first.checks) unjudged += std::isnan(r.lo);
  CHECK(unjudged > 0);
  const ResultsTable merged =
      merge_run_files(dir / "merged.h5", {dir / "s2.h5", dir / "s1.h5"}, default_experiment_registry(), registry);
  REQUIRE(merged.columns.size() == whole.table.columns.size());
  for (std::size_t c = 0; c < merged.columns.size(); ++c) {
    INFO(merged.columns[c].name);
    CHECK(merged.columns[c].name == whole.table.columns[c].name);
    if (const auto* x = std::get_if<std::vector<double>>(&merged.columns[c].values)) {
      const auto& y = std::get<std::vector<double>>(whole.table.columns[c].values);
      REQUIRE(x->size() == y.size());
      CHECK(std::memcmp(x->data(), y.data(), x->size() * sizeof(double)) == 0);
    } else {
      CHECK(merged.columns[c].values == whole.table.columns[c].values);
    }
  }
}
