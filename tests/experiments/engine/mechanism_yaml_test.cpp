// The YAML adapter of mechanisms (experiments/engine/mechanism_yaml.h): YAML maps and texts give
// the mechanisms and the messages of the typed keys; quoted numbers and repeated keys are refused.
#include "tests/catch.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/source_dir.h"
#include "experiments/engine/mechanism_yaml.h"

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

TEST_CASE("YAML maps build the mechanisms of the registry", "[engine][mechanisms]") {
  const MechanismRegistry registry = default_mechanism_registry();
  const auto vmf = make_mechanism("{name: vmf, epsilon: 2, beta: 1}", registry);
  CHECK(vmf->name() == "vmf");
  CHECK(vmf->epsilon() == 2.0);
  CHECK(make_mechanism("{name: vmf_tangent, epsilon: 3}", registry)->claim().epsilon == 3.0);
  CHECK(make_mechanism("{name: laplace, epsilon: 1, clip_norm: 2}", registry)->name() == "laplace");
  // A number written as YAML reads as yaml-cpp reads it (1.0e-5, .5, .inf), in the order given.
  const MechanismConfig config = mechanism_config(YAML::Load("{name: gaussian, delta: 1.0e-5, epsilon: .5, clip_norm: .inf}"));
  CHECK(config.name == "gaussian");
  REQUIRE(config.values.size() == 3);
  for (const auto& [key, value] : config.values) REQUIRE(value.number.has_value());
  CHECK(*config.values[0].second.number == 1.0e-5);
  CHECK(*config.values[1].second.number == 0.5);
  CHECK(std::isinf(*config.values[2].second.number));
  CHECK_THAT(error_of("{name: gaussian, epsilon: 1, clip_norm: .inf}"), Contains("clip_norm must be finite and > 0, got inf"));
}

TEST_CASE("bad YAML mechanisms are refused with one message naming the problem", "[engine][mechanisms]") {
  CHECK_THAT(error_of("{name: vnf, epsilon: 2}"),
             Contains("unknown mechanism 'vnf'") && Contains("valid: gaussian, laplace, npgaussian, vmf, vmf_tangent"));
  CHECK_THAT(error_of("{name: vmf, epsilon: 2, sigma: 1}"),
             Contains("mechanism vmf: unknown key 'sigma'") && Contains("valid: name, epsilon, beta, alpha"));
  CHECK_THAT(error_of("{epsilon: 2}"), Contains("needs a 'name'"));
  CHECK_THAT(error_of("[vmf, 2]"), Contains("must be a map"));
  CHECK_THAT(error_of("{name: vmf}"), Contains("missing required key 'epsilon'"));
  CHECK_THAT(error_of("{name: vmf, epsilon: two}"), Contains("epsilon must be a number, got 'two'"));
  CHECK_THAT(error_of("{name: vmf, epsilon: [1, 2]}"), Contains("epsilon must be a number, got '[1, 2]'"));
  CHECK_THAT(error_of("{name: gaussian, epsilon: 1, clip_norm: 1, calibration: exact}"),
             Contains("calibration must be 'classic' or 'analytic', got 'exact'"));
  CHECK_THAT(error_of("{name: vmf, epsilon: [1"), Contains("malformed mechanism YAML"));
  CHECK_THAT(error_of("{name: vmf, ? [a, b] : 1, epsilon: 1}"), Contains("a mechanism key must be a plain name"));
}

TEST_CASE("a quoted number is text for mechanism keys, as for every other key", "[engine][mechanisms]") {
  CHECK_THAT(error_of("{name: vmf, epsilon: \"1\"}"), Contains("epsilon must be a number, got '1' (quoted: text)"));
  CHECK_THAT(error_of("{name: gaussian, epsilon: 1, clip_norm: '2'}"),
             Contains("clip_norm must be a number, got '2' (quoted: text)"));
  // A quoted text stays a text where text is wanted.
  CHECK(make_mechanism("{name: \"gaussian\", epsilon: 1, clip_norm: 1, calibration: \"classic\"}",
                       default_mechanism_registry())->name() == "gaussian");
}

TEST_CASE("a mechanism key given twice in YAML text is refused", "[engine][mechanisms]") {
  CHECK_THAT(error_of("{name: vmf, epsilon: 2, epsilon: 3, beta: 1}"), Contains("duplicate key 'epsilon'"));
  CHECK_THAT(error_of("{name: vmf, name: gaussian, epsilon: 2}"), Contains("duplicate key 'name'"));
}

TEST_CASE("the mechanisms layer reads no YAML: only the adapter does", "[engine][mechanisms]") {
  // CMakeLists.txt links yaml-cpp to the experiments layer, not to mechanisms: an include of it
  // under mechanisms/ would not build the day the experiments layer stops bringing it along.
  namespace fs = std::filesystem;
  std::vector<std::string> offenders;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(source_dir()) / "mechanisms")) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find("#include <yaml-cpp/") != std::string::npos) offenders.push_back(entry.path().string());
  }
  CHECK(offenders == std::vector<std::string>{});
}
