// Limits of experiment type perturbation checked before any work.
#include "experiments/types/perturbation/perturbation_experiment.h"

#include "experiments/engine/run_memory.h"
#include "experiments/engine/run_plan.h"
#include "experiments/types/registry.h"
#include "tests/catch.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// The error the run's plan or its memory check stops with ("" when it is accepted).
std::string plan_error(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  try {
    const RunPlan plan = plan_from_document(parse_config_text(yaml, "x.yaml"), overrides,
                                            default_experiment_registry(), mechanisms);
    check_run_memory(plan, estimate_run_memory(plan, Shard{}));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kConfig = R"(type: perturbation
data: {dim: 16, samples: 100}
mechanism: {name: vmf, epsilon: 1, beta: 1}
)";

}  // namespace

TEST_CASE("perturbation refuses a data.dim whose chunk exceeds the memory limit, before any work",
          "[limits]") {
  // One chunk of 4096 rows x 1e9 values takes 98 TB, far above half of any machine's memory;
  // before the check the run started and allocated until it was killed.
  const std::string error = plan_error(kConfig, {"data.dim=1000000000", "data.samples=20000"});
  CHECK_THAT(error, Contains("data.dim = 1000000000") && Contains("data.samples = 20000") &&
                        Contains("physical memory"));
  // Only the chunk counts, not all rows: 1e9 rows of d = 16 are streamed 4096 at a time.
  CHECK(plan_error(kConfig, {"data.samples=1000000000"}).empty());
  // Fewer rows than a chunk: the batch is data.samples rows (2 x 1e12 x 24 bytes = 48 TB).
  CHECK_THAT(plan_error(kConfig, {"data.dim=1000000000000", "data.samples=2"}),
             Contains("one chunk of 2 rows"));
  CHECK(plan_error(kConfig).empty());
}
