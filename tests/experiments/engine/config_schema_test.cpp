// Merging a config over its type's defaults: a mechanism map given without its name is refused
// (it would silently become the default mechanism); single-key overrides still change the default.
#include "tests/catch.h"

#include <string>
#include <vector>

#include "experiments/engine/run_plan.h"
#include "experiments/types/registry.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

RunPlan plan(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  return plan_from_document(parse_config_text(yaml, "x.yaml"), overrides, default_experiment_registry(),
                            mechanisms);
}

std::string plan_error(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    plan(yaml, overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* kBase = "type: perturbation\ndata: {dim: 16, samples: 100}\n";

}  // namespace

TEST_CASE("a mechanism map without a name is refused, not merged into the default mechanism", "[engine]") {
  CHECK_THAT(plan_error(std::string(kBase) + "mechanism: {epsilon: 3}\n"),
             Contains("x.yaml line 3: mechanism {epsilon: 3} has no name"));
  CHECK_THAT(plan_error(kBase, {"mechanism={epsilon: 3}"}),
             Contains("command line 'mechanism={epsilon: 3}': mechanism {epsilon: 3} has no name"));
}

TEST_CASE("single-key overrides and a swept name still complete a mechanism without a name", "[engine]") {
  const RunPlan overridden = plan(kBase, {"mechanism.epsilon=3"});
  CHECK(overridden.base["mechanism"]["name"].as<std::string>() == "vmf_tangent");
  CHECK(overridden.base["mechanism"]["epsilon"].as<double>() == 3);
  const RunPlan named = plan(std::string(kBase) + "mechanism: {epsilon: 3, beta: 1}\n", {"mechanism.name=vmf"});
  CHECK(named.base["mechanism"]["name"].as<std::string>() == "vmf");
  CHECK(plan_error(std::string(kBase) + "mechanism: {epsilon: 3, beta: 1}\nsweep:\n  mechanism.name: [vmf_tangent]\n")
            .empty());
}
