// Limits of experiment type perturbation checked before any work.
#include "experiments/types/perturbation/perturbation_experiment.h"

#include <chrono>

#include "experiments/engine/run_plan.h"
#include "experiments/types/registry.h"
#include "tests/catch.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// The error the run's plan stops with ("" when it is accepted).
std::string plan_error(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  try {
    plan_from_document(parse_config_text(yaml, "x.yaml"), overrides, default_experiment_registry(),
                       mechanisms);
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
  const auto start = std::chrono::steady_clock::now();
  const std::string error = plan_error(kConfig, {"data.dim=1000000000", "data.samples=20000"});
  CHECK_THAT(error, Contains("data.dim = 1000000000") && Contains("data.samples = 20000") &&
                        Contains("physical memory"));
  // Refused in the plan, without allocating: well under a second.
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 1.0);
  // Only the chunk counts, not all rows: 1e9 rows of d = 16 are streamed 4096 at a time.
  CHECK(plan_error(kConfig, {"data.samples=1000000000"}).empty());
  // Fewer rows than a chunk: the batch is data.samples rows (2 x 1e12 x 24 bytes = 48 TB).
  CHECK_THAT(plan_error(kConfig, {"data.dim=1000000000000", "data.samples=2"}),
             Contains("one chunk of 2 rows"));
  CHECK(plan_error(kConfig).empty());
}
