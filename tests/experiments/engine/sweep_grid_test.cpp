// The size of a sweep's grid: counted without overflow and refused above kMaxGridRows before
// anything is expanded in memory.
#include "tests/catch.h"

#include <string>
#include <vector>

#include "experiments/engine/run_plan.h"
#include "experiments/engine/sweep_grid.h"
#include "experiments/types/registry.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// An axis of `values` steps over one key.
SweepAxis axis_of(const std::string& path, std::int64_t values) {
  SweepAxis axis{{path}, {}};
  for (std::int64_t i = 0; i < values; ++i) axis.steps.push_back({YAML::Node(i)});
  return axis;
}

std::vector<SweepAxis> axes_of(int keys, std::int64_t values) {
  std::vector<SweepAxis> axes;
  for (int k = 0; k < keys; ++k) axes.push_back(axis_of("mechanism.k" + std::to_string(k), values));
  return axes;
}

std::string grid_error(const std::vector<SweepAxis>& axes, std::int64_t seeds) {
  try {
    const std::vector<GridPoint> grid = expand_grid(axes, 1, seeds);
    return "no error; " + std::to_string(grid.size()) + " rows";
  } catch (const Error& e) {
    return e.what();
  }
}

// A sweep block of `keys` keys with `values` values each, as YAML.
std::string sweep_yaml(int keys, int values) {
  std::string yaml = "sweep:\n";
  for (int k = 0; k < keys; ++k) {
    yaml += "  mechanism.k" + std::to_string(k) + ": [";
    for (int v = 0; v < values; ++v) yaml += (v ? ", " : "") + std::to_string(v);
    yaml += "]\n";
  }
  return yaml;
}

}  // namespace

TEST_CASE("a grid of 2^64 points is refused, not wrapped around to 0 points", "[engine]") {
  // 8 keys x 256 values: the unchecked product wraps to exactly 0.
  CHECK_THAT(grid_error(axes_of(8, 256), 1), Contains("more than 1000000 points"));
  // 4 x 2^16 values: 1.8e19 points, which an unchecked product counts as a small number.
  CHECK_THAT(grid_error(axes_of(4, 65535), 1), Contains("more than 1000000 points"));
}

TEST_CASE("the grid limit counts rows: points times seeds", "[engine]") {
  CHECK(checked_grid_rows(axes_of(2, 1000), 1) == 1'000'000);
  CHECK_THAT(grid_error(axes_of(2, 1000), 2), Contains("1000000 points x 2 seeds"));
  CHECK_THAT(grid_error({}, std::int64_t{1} << 62), Contains("seeds, more than 1000000 rows"));
  CHECK(expand_grid(axes_of(2, 3), 1, 2).size() == 18);
}

TEST_CASE("an any_of axis above the limit is refused before its blocks are expanded", "[engine]") {
  YAML::Node sweep = YAML::Load("any_of: []");
  for (int block = 0; block < 2; ++block) {
    sweep["any_of"].push_back(YAML::Load(sweep_yaml(8, 256).substr(7)));
  }
  CHECK_THROWS_WITH(read_sweep_axes(sweep), Contains("sweep.any_of has more than 1000000 points"));
}

TEST_CASE("a config whose grid exceeds the limit is refused with the sweep's line", "[engine]") {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  const std::string yaml = "type: perturbation\ndata: {dim: 16, samples: 100}\n" + sweep_yaml(8, 256);
  CHECK_THROWS_WITH(plan_from_document(parse_config_text(yaml, "x.yaml"), {}, default_experiment_registry(),
                                       mechanisms),
                    Contains("x.yaml line 4: the sweep has more than 1000000 points"));
}
