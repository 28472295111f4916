// The config schema, overrides and the sweep grid of the experiment engine.
#include "tests/catch.h"

#include <algorithm>
#include <set>

#include <cmath>
#include <fstream>
#include <sstream>

#include "experiments/engine/run_plan.h"
#include "experiments/engine/runner.h"
#include "tests/test_temp_dir.h"
#include "experiments/types/registry.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

RunPlan plan(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  return plan_from_document(parse_config_text(yaml, "x.yaml"), overrides,
                            default_experiment_registry(), mechanisms);
}

std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    plan(yaml, overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kSweep = R"(type: perturbation
seeds: 3
data: {dim: 16, samples: 100}
mechanism: {name: vmf_tangent, epsilon: 1, beta: 1}
sweep:
  mechanism:
    - {name: vmf_tangent, beta: 1}
    - {name: vmf, beta: 2}
    - {name: gaussian, clip_norm: 1}
  mechanism.epsilon: [0.5, 1, 2, 4, 8, 16]
)";

}  // namespace

TEST_CASE("the grid is the cartesian product of the sweep lists times the seeds", "[engine]") {
  const RunPlan p = plan(kSweep);
  CHECK(p.points() == 18);
  REQUIRE(p.grid.size() == 54);
  CHECK(p.swept == std::vector<std::string>{"mechanism", "mechanism.epsilon"});
  // Rows are numbered in order, the replicate fastest, and seeds are seed + replicate.
  for (std::size_t i = 0; i < p.grid.size(); ++i) {
    CHECK(p.grid[i].row == static_cast<std::int64_t>(i));
    CHECK(p.grid[i].replicate == static_cast<std::int64_t>(i % 3));
    CHECK(p.grid[i].seed == 1 + i % 3);
  }
  // Every (mechanism, epsilon) pair appears once per replicate; the last axis varies fastest.
  std::set<std::string> keys;
  for (const GridPoint& point : p.grid) keys.insert(point.key);
  CHECK(keys.size() == 18);
  CHECK(p.grid[3].key == "mechanism.epsilon=1; mechanism={name: vmf_tangent, beta: 1}");
  // A point's config: the whole mechanism map first, then its epsilon.
  const YAML::Node config = resolve_point(p.base, p.grid[3 * 7]);  // vmf, eps = 1
  CHECK(config["mechanism"]["name"].as<std::string>() == "vmf");
  CHECK(config["mechanism"]["beta"].as<double>() == 2);
  CHECK(config["mechanism"]["epsilon"].as<double>() == 1);
  CHECK(!config["sweep"]);
  CHECK(config["data"]["samples"].as<int>() == 100);
  CHECK(config["data"]["norm_min"].as<double>() == 0.5);  // defaults filled in
}

TEST_CASE("a point's identity depends on its values, not on the rest of the grid", "[engine]") {
  const RunPlan a = plan(kSweep);
  const RunPlan b = plan(kSweep, {"mechanism.epsilon=[16, 1]"});
  REQUIRE(b.grid.size() == 18);
  // vmf_tangent at eps 1, replicate 0: row 3 of a, row 3 of b (eps 1 is now second).
  CHECK(a.grid[3].key == b.grid[3].key);
  CHECK(a.grid[3].point_id == b.grid[3].point_id);
  CHECK(a.grid[3].point_id != a.grid[0].point_id);
}

TEST_CASE("zip groups vary their keys together", "[engine]") {
  const RunPlan p = plan(R"(type: perturbation
data: {samples: 100}
sweep:
  mechanism.epsilon: [1, 2]
  zip:
    - {data.dim: [8, 16, 32], data.samples: [300, 200, 100]}
)");
  REQUIRE(p.grid.size() == 6);
  const YAML::Node last = resolve_point(p.base, p.grid[5]);
  CHECK(last["data"]["dim"].as<int>() == 32);
  CHECK(last["data"]["samples"].as<int>() == 100);
  CHECK(last["mechanism"]["epsilon"].as<double>() == 2);
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  zip:\n    - {data.dim: [8, 16], data.samples: [3]}\n"),
             Contains("zip group lists must have one length"));
}

TEST_CASE("a zip group's first key leads its figures; the others never make an axis or a line", "[engine]") {
  const auto find = [](const RunPlan& p, const std::string& name) {
    const auto at = std::find_if(p.plots.begin(), p.plots.end(), [&](const PlotRequest& r) { return r.name == name; });
    return at == p.plots.end() ? nullptr : &*at;
  };
  const RunPlan methods = plan(R"(type: federated
sweep:
  zip:
    - {method: [privateai, fedavg], distill.mu: [0.6, 0.9]}
  dp.epsilon: [1, 10]
)");
  REQUIRE(find(methods, "psr_vs_dp.epsilon"));
  CHECK(find(methods, "psr_vs_dp.epsilon")->group_by == std::vector<std::string>{"method", "distill.mu"});
  CHECK_FALSE(find(methods, "psr_vs_distill.mu"));  // mu follows method: not an axis of its own
  REQUIRE(find(methods, "psr_by_round"));  // rows at the extreme eps, whatever mu (a follower)
  CHECK(find(methods, "psr_by_round")->extremes_of == std::vector<std::string>{"dp.epsilon"});
  const RunPlan epsilons = plan(R"(type: federated
sweep:
  zip:
    - {dp.epsilon: [1, 10, 100], dp.enabled: [true, true, false]}
)");
  REQUIRE(find(epsilons, "psr_vs_dp.epsilon"));
  CHECK(find(epsilons, "psr_vs_dp.epsilon")->group_by.empty());  // no line per dp.enabled value
}

TEST_CASE("overrides set values, turn lists into sweeps and pin swept keys", "[engine]") {
  const RunPlan p = plan(kSweep, {"mechanism.epsilon=[0.5,1,2]", "seeds=2", "data.dim=8"});
  CHECK(p.grid.size() == 3 * 3 * 2);
  CHECK(p.base["data"]["dim"].as<int>() == 8);
  const RunPlan pinned = plan(kSweep, {"mechanism.epsilon=3"});
  CHECK(pinned.grid.size() == 3 * 3);
  CHECK(resolve_point(pinned.base, pinned.grid[0])["mechanism"]["epsilon"].as<double>() == 3);
  const RunPlan swept = plan("type: perturbation\ndata: {samples: 100, dim: 8}\n",
                             {"sweep.data.dim=[4, 8]"});
  CHECK(swept.grid.size() == 2);
  // The hash of the config changes with a value that changes results, not with out/threads.
  CHECK(plan(kSweep).config_hash == plan(kSweep, {"out=elsewhere.h5", "threads=1"}).config_hash);
  CHECK(plan(kSweep).config_hash != p.config_hash);
}

TEST_CASE("bad configs are rejected before any work, naming the key and its line", "[engine]") {
  CHECK_THAT(error_of("type: perturbation\nmechanism: {name: vmf, epsilon: 1}\nepsilonn: 3\n"),
             Contains("x.yaml line 3: unknown key 'epsilonn'; valid: type, name"));
  CHECK_THAT(error_of("type: perturbation\ndata:\n  dim: 8\n  sampels: 3\n"),
             Contains("unknown key 'sampels' in 'data'; valid: source, dim, samples"));
  CHECK_THAT(error_of("type: perturbation\ndata:\n  dim: eight\n"),
             Contains("x.yaml line 3: data.dim must be an integer, got eight"));
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  mechanism.epsilon: []\n"),
             Contains("x.yaml line 3: sweep.mechanism.epsilon must be a non-empty list"));
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  mechanism.epsilon: [1, 0, 2]\n"),
             Contains("x.yaml line 3") && Contains("sweep value 0") &&
                 Contains("epsilon must be finite and > 0, got 0"));
  CHECK_THAT(error_of("type: perturbation\nmechanism: {name: vmf, epsilon: -1}\n"),
             Contains("x.yaml line 2") && Contains("epsilon must be finite and > 0, got -1"));
  CHECK_THAT(error_of("type: perturbation\nmechanism: {name: vfm, epsilon: 1}\n"),
             Contains("unknown mechanism 'vfm'"));
  CHECK_THAT(error_of("type: perturbation\ndata: {dim: 1}\n"),
             Contains("x.yaml line 2: data.dim must be >= 2, got 1"));
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  dimension: [1, 2]\n"),
             Contains("sweep names an unknown key 'dimension'"));
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  seeds: [1, 2]\n"),
             Contains("'seeds' cannot be swept"));
  CHECK_THAT(error_of("type: perturbation\nseeds: 0\n"), Contains("x.yaml line 2: seeds must be >= 1"));
  CHECK_THAT(error_of("type: frobnicate\n"),
             Contains("x.yaml line 1: unknown experiment type 'frobnicate'; valid: perturbation") && Contains("bounds"));
  CHECK_THAT(error_of("type: perturbation\n", {"mechanism.epsilon=0"}),
             Contains("command line 'mechanism.epsilon=0'") && Contains("epsilon must be finite and > 0"));
  CHECK_THAT(error_of("type: perturbation\n", {"mechanism.epsilon=[1,-1]"}),
             Contains("command line 'mechanism.epsilon=[1,-1]'") && Contains("sweep value -1"));
  CHECK_THAT(error_of("type: perturbation\n", {"data.dimm=3"}),
             Contains("command line 'data.dimm=3': unknown key 'data.dimm'"));
  CHECK_THAT(error_of("type: perturbation\n", {"seeds"}), Contains("must look like key.path=value"));
  CHECK_THAT(error_of("type: perturbation\nplots: [{x: mechanism.epsilon, y: mean_cosin}]\nsweep: {mechanism.epsilon: [1, 2]}\n"),
             Contains("x.yaml line 2") && Contains("mean_cosin"));
  CHECK_THAT(error_of("type: perturbation\nmechanism: {name: [1\n"), Contains("malformed YAML"));
}

TEST_CASE("an any_of sweep is the union of its blocks' grids, times the other axes", "[engine]") {
  const RunPlan p = plan(R"(type: perturbation
data: {dim: 16, samples: 100}
sweep:
  data.dim: [8, 16]
  any_of:
    - {mechanism: [{name: vmf, beta: 1}, {name: vmf_tangent, beta: 1}], mechanism.epsilon: [1, 2, 4]}
    - mechanism: [{name: gaussian, clip_norm: 1, epsilon: 1}]
      data.norm_max: [3, 4]
)");
  CHECK(p.grid.size() == 2 * (2 * 3 + 2));
  CHECK(p.swept == std::vector<std::string>{"data.dim", "mechanism", "mechanism.epsilon", "data.norm_max"});
  // A key a block leaves alone keeps its configured value at that block's points.
  const GridPoint& last = p.grid.back();
  CHECK(last.key == "data.dim=16; data.norm_max=4; mechanism={name: gaussian, clip_norm: 1, epsilon: 1}");
  const YAML::Node resolved = resolve_point(p.base, last);
  CHECK(resolved["mechanism"]["epsilon"].as<double>() == 1);
  CHECK(resolve_point(p.base, p.grid.front())["data"]["norm_max"].as<double>() == 2.0);
  std::set<std::string> keys;
  for (const GridPoint& point : p.grid) keys.insert(point.key);
  CHECK(keys.size() == p.grid.size());
}

TEST_CASE("malformed any_of sweeps are refused with the reason", "[engine]") {
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  any_of: {data.dim: [8]}\n"),
             Contains("sweep.any_of must be a non-empty list of sweep blocks"));
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  any_of: [{any_of: [{data.dim: [8]}]}]\n"),
             Contains("any_of blocks cannot hold another any_of"));
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  any_of: [{data.dim: [8]}, {data.dim: [8, 16]}]\n"),
             Contains("two blocks give the same point"));
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  data.dim: [8]\n  any_of: [{data.dim: [16]}]\n"),
             Contains("'data.dim' is swept twice"));
  CHECK_THAT(error_of("type: perturbation\nsweep:\n  any_of: [{dimension: [8]}]\n"),
             Contains("sweep names an unknown key 'dimension'"));
}

TEST_CASE("a key one any_of block sweeps and the config never sets is NaN at the other points", "[engine]") {
  TempDir dir("embpriv_any_of_test");
  std::ofstream(dir / "c.yaml") << R"(type: perturbation
data: {dim: 8, samples: 100}
sweep:
  any_of:
    - {mechanism: [{name: vmf, epsilon: 1}], mechanism.beta: [0.5, 2]}
    - {mechanism: [{name: laplace, epsilon: 1, clip_norm: 1}]}
)";
  RunOptions options;
  options.config_path = dir / "c.yaml";
  options.out = dir / "r.h5";
  options.plot = false;
  std::ostringstream log;
  REQUIRE(run_experiment(options, default_experiment_registry(), default_mechanism_registry(), log) == 0);
  const auto beta = std::get<std::vector<double>>(read_results_h5(options.out).column("mechanism.beta").values);
  REQUIRE(beta.size() == 3);
  CHECK(beta[0] == 0.5);
  CHECK(beta[1] == 2);
  CHECK(std::isnan(beta[2]));
}

TEST_CASE("a seed whose replicates would pass 2^63-1 is refused; the largest that fits is kept", "[engine]") {
  // Replicate r uses seed + r, stored as a signed 64-bit integer: 2^63-1 + 2 stored negative.
  CHECK_THAT(error_of("type: perturbation\nseed: 9223372036854775807\nseeds: 3\n"),
             Contains("x.yaml line 2: seed + seeds - 1 must be at most 2^63-1 = 9223372036854775807") &&
                 Contains("got seed 9223372036854775807 and seeds 3"));
  CHECK_THAT(error_of("type: perturbation\nseed: 9223372036854775806\n", {"seeds=3"}),
             Contains("seed + seeds - 1 must be at most 2^63-1"));
  const RunPlan p = plan("type: perturbation\nseed: 9223372036854775805\nseeds: 3\n");
  CHECK(p.grid.back().seed == 9223372036854775807ULL);
}
