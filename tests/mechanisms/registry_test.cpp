// Building mechanisms from YAML: valid maps, unknown names and keys, wrong types.
#include "tests/catch.h"

#include "core/error.h"
#include "mechanisms/registry.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {
std::string error_of(const std::string& yaml) {
  try {
    make_mechanism(yaml, default_mechanism_registry());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("the registry builds the five mechanisms from YAML", "[mechanisms][registry]") {
  const MechanismRegistry registry = default_mechanism_registry();
  CHECK(registry.names() ==
        std::vector<std::string>{"gaussian", "laplace", "npgaussian", "vmf", "vmf_tangent"});
  const auto vmf = make_mechanism("{name: vmf, epsilon: 2, beta: 1}", registry);
  CHECK(vmf->name() == "vmf");
  CHECK(vmf->epsilon() == 2.0);
  CHECK(make_mechanism("{name: vmf_tangent, epsilon: 3}", registry)->claim().epsilon == 3.0);
  CHECK(make_mechanism("{name: laplace, epsilon: 1, clip_norm: 2}", registry)->name() ==
        "laplace");
}

TEST_CASE("unknown names and keys are rejected with the valid list", "[mechanisms][registry]") {
  CHECK_THAT(error_of("{name: vnf, epsilon: 2}"),
             Contains("unknown mechanism 'vnf'") &&
                 Contains("valid: gaussian, laplace, npgaussian, vmf, vmf_tangent"));
  CHECK_THAT(error_of("{name: vmf, epsilon: 2, sigma: 1}"),
             Contains("mechanism vmf: unknown key 'sigma'") &&
                 Contains("valid: name, epsilon, beta, alpha"));
  CHECK_THAT(error_of("{epsilon: 2}"), Contains("needs a 'name'"));
  CHECK_THAT(error_of("[vmf, 2]"), Contains("must be a map"));
  CHECK_THAT(error_of("{name: vmf}"), Contains("missing required key 'epsilon'"));
  CHECK_THAT(error_of("{name: vmf, epsilon: two}"),
             Contains("epsilon must be a number, got 'two'"));
  CHECK_THAT(error_of("{name: gaussian, epsilon: 1, clip_norm: 1, calibration: exact}"),
             Contains("calibration must be 'classic' or 'analytic', got 'exact'"));
  CHECK_THAT(error_of("{name: vmf, epsilon: [1"), Contains("malformed mechanism YAML"));
}
