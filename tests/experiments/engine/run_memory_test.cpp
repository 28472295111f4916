// The memory check of experiments/engine/run_memory.h: every experiment type's estimate is
// compared with the batch memory limit before any work, the dry run prints it, and a run's
// shared data are added up over its points.
#include "experiments/engine/run_memory.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "platform/memory_limit.h"
#include "experiments/types/registry.h"
#include "tests/catch.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

RunPlan plan_of(const std::string& path, const std::vector<std::string>& overrides = {}) {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  return plan_run(path, overrides, default_experiment_registry(), mechanisms);
}

std::string memory_error(const RunPlan& plan) {
  try {
    check_run_memory(plan, estimate_run_memory(plan, Shard{}));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every experiment type refuses a point too large for the machine before any row, naming the key",
          "[engine][limits][memory]") {
  REQUIRE(default_experiment_registry().names().size() == 8);  // a new type gets a case here
  TempDir dir("embpriv_run_memory_test");
  struct Case {
    std::string type, yaml, key;
  };
  const std::vector<Case> cases = {
      {"perturbation", "data: {dim: 100000000}", "data.dim = 100000000"},
      {"bounds", "data: {dim: 100000000, samples: 20000}", "data.dim = 100000000"},
      {"audit", "audit: {trials: 100000000000}", "audit.trials = 100000000000"},
      {"inversion", "language_model: {texts: 100000000}", "language_model.texts = 100000000"},
      {"obfuslm", "language_model: {texts: 100000000}", "language_model.texts = 100000000"},
      {"mia", "attack: {shadows: 100000000000}", "attack.shadows = 100000000000"},
      {"federated", "attack: {shadows: 100000000000}", "attack.shadows = 100000000000"},
      {"accountant", "rounds: 1000000000000", "rounds = 1000000000000"},
  };
  for (const Case& c : cases) {
    INFO(c.type);
    const std::string config = dir / (c.type + ".yaml");
    write_file(config, "type: " + c.type + "\n" + c.yaml + "\n");
    const Outcome outcome = run_binary("run " + config + " --out " + dir / (c.type + ".h5"));
    CHECK(outcome.code == 2);
    // One line, before the BLAS line that starts every run: no row ran, no file was written.
    CHECK_THAT(outcome.output, StartsWith("embpriv: error: " + config + " line 2") && Contains(c.key) &&
                                   Contains("one grid point needs") && Contains("more than the limit of " +
                                                                                format_bytes(batch_memory_limit_bytes())));
    CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
    CHECK(!std::filesystem::exists(dir / (c.type + ".h5")));
    // The dry run refuses it alike.
    CHECK(run_binary("run " + config + " --dry-run").code == 2);
  }
}

TEST_CASE("the dry run prints the largest point's estimated memory", "[engine][memory]") {
  TempDir dir("embpriv_dry_run_memory_test");
  write_file(dir / "run.yaml", "type: perturbation\ndata: {samples: 5000}\nsweep: {data.dim: [64, 1024, 256]}\n");
  const RunMemory memory = estimate_run_memory(plan_of(dir / "run.yaml"), Shard{});
  // One chunk of 4096 rows x 1024 values, 24 bytes a value: the row of data.dim 1024.
  CHECK(memory.largest.peak_bytes() == 4096.0 * 1024 * 24);
  CHECK(memory.largest_point->row == 1);
  const Outcome outcome = run_binary("run " + dir / "run.yaml" + " --dry-run");
  CHECK(outcome.code == 0);
  CHECK_THAT(outcome.output, Contains("estimated memory: " + format_bytes(4096.0 * 1024 * 24) +
                                      " at the largest point (row 1 data.dim=1024: one chunk of 4096 rows x 1024 values"));
}

TEST_CASE("a run's shared data are added up over its seeds and dims", "[engine][memory][bounds]") {
  TempDir dir("embpriv_shared_memory_test");
  // Type bounds keeps each (samples, dim, seed)'s inputs (8 bytes a value) until the run ends
  // and works on 12 bytes a value more at a point: a point of n values takes about 20 n, a run
  // of 4 seeds 4 x 8 n + 12 n = 44 n. With n = limit / 30 each point fits and the run does not.
  const double limit = batch_memory_limit_bytes();
  const auto dim = static_cast<std::int64_t>(limit / 30 / 1000);
  write_file(dir / "run.yaml", "type: bounds\ndata: {samples: 1000, dim: " + std::to_string(dim) + "}\nseeds: 4\n");
  const RunPlan plan = plan_of(dir / "run.yaml");
  const RunMemory memory = estimate_run_memory(plan, Shard{});
  CHECK(memory.largest.peak_bytes() < limit);
  CHECK(memory.shared_entries == 4);
  CHECK(memory.run_bytes > limit);
  CHECK_THAT(memory_error(plan), Contains("the run keeps the shared data of 4 settings") &&
                                     Contains("data.dim = " + std::to_string(dim)));
  // One seed fits; so does each shard of a run split 4 ways (one seed each).
  CHECK(memory_error(plan_of(dir / "run.yaml", {"seeds=1"})).empty());
  CHECK(estimate_run_memory(plan, Shard{2, 4}).shared_entries == 1);
}
