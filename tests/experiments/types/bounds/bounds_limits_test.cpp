// Limits of experiment type bounds checked before any work.
#include "core/source_dir.h"
#include "experiments/engine/run_memory.h"
#include "experiments/engine/run_plan.h"
#include "experiments/types/registry.h"
#include "tests/catch.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

const std::string kConfig = std::string(embpriv::source_dir()) + "/configs/bounds.yaml";

std::string plan_error(const std::vector<std::string>& overrides) {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  try {
    const RunPlan plan = plan_run(kConfig, overrides, default_experiment_registry(), mechanisms);
    check_run_memory(plan, estimate_run_memory(plan, Shard{}));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("bounds refuses inputs that exceed the memory limit, before any work", "[bounds][limits]") {
  // 20,000 samples x 1e9 values x 20 bytes (x1, x2, y1, y2 in float32 and a temporary) = 400 TB;
  // before the check the run allocated until it was killed.
  CHECK_THAT(plan_error({"sweep.data.dim=[64, 1000000000]", "data.samples=20000"}),
             Contains("data.dim = 1000000000") && Contains("data.samples = 20000") &&
                 Contains("physical memory"));
  // Many samples at a small dim are refused the same way: 1e12 samples x 64 values.
  CHECK_THAT(plan_error({"sweep.data.dim=[64]", "data.samples=1000000000000"}),
             Contains("data.samples = 1000000000000"));
  CHECK(plan_error({"sweep.data.dim=[64, 512]", "data.samples=4000"}).empty());
}
