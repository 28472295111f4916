// Building mechanisms from typed keys (no YAML: mechanisms/param_spec.h): valid configs, unknown
// names and keys, wrong kinds, ranges and defaults, each key declared once with its help.
#include "tests/catch.h"

#include <set>

#include "core/error.h"
#include "mechanisms/gaussian.h"
#include "mechanisms/mechanism_params.h"
#include "mechanisms/registry.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

ParamValue number(double value) { return {value, std::to_string(value), "'" + std::to_string(value) + "'"}; }
ParamValue text(const std::string& value) { return {std::nullopt, value, "'" + value + "'"}; }

std::string error_of(const MechanismConfig& config) {
  try {
    default_mechanism_registry().make(config);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the registry builds the five mechanisms from typed keys", "[mechanisms][registry]") {
  const MechanismRegistry registry = default_mechanism_registry();
  CHECK(registry.names() == std::vector<std::string>{"gaussian", "laplace", "npgaussian", "vmf", "vmf_tangent"});
  const auto vmf = registry.make({"vmf", {{"epsilon", number(2)}, {"beta", number(0.5)}}});
  CHECK(vmf->name() == "vmf");
  CHECK(vmf->epsilon() == 2.0);
  CHECK(vmf->claim().epsilon == 4.0);  // kappa = eps / beta
  CHECK(vmf->alpha() == 1.0);          // the declared default
  CHECK(registry.make({"vmf_tangent", {{"epsilon", number(3)}}})->epsilon() == 3.0);
  // Defaults: delta 1e-5 and the analytic calibration, as a Gaussian built by hand.
  const auto g = registry.make({"gaussian", {{"epsilon", number(1)}, {"clip_norm", number(2)}}});
  const GaussianMechanism by_hand(1, 1e-5, 2, GaussianCalibration::analytic);
  CHECK(dynamic_cast<const GaussianMechanism&>(*g).sigma() == by_hand.sigma());
  const auto classic = registry.make(
      {"gaussian", {{"epsilon", number(0.5)}, {"clip_norm", number(1)}, {"calibration", text("classic")}}});
  CHECK(dynamic_cast<const GaussianMechanism&>(*classic).sigma() ==
        GaussianMechanism(0.5, 1e-5, 1, GaussianCalibration::classic).sigma());
}

TEST_CASE("unknown names and keys, wrong kinds and ranges are refused naming the key", "[mechanisms][registry]") {
  CHECK_THAT(error_of({"vnf", {{"epsilon", number(2)}}}),
             Contains("unknown mechanism 'vnf'") && Contains("valid: gaussian, laplace, npgaussian, vmf, vmf_tangent"));
  CHECK_THAT(error_of({"", {{"epsilon", number(2)}}}), Contains("needs a 'name'"));
  CHECK_THAT(error_of({"vmf", {{"epsilon", number(2)}, {"sigma", number(1)}}}),
             Contains("mechanism vmf: unknown key 'sigma'") && Contains("valid: name, epsilon, beta, alpha"));
  CHECK_THAT(error_of({"vmf", {{"epsilon", number(2)}, {"epsilon", number(3)}}}),
             Contains("mechanism vmf: duplicate key 'epsilon'"));
  CHECK_THAT(error_of({"vmf", {}}), Contains("missing required key 'epsilon'"));
  CHECK_THAT(error_of({"laplace", {{"epsilon", number(1)}}}), Contains("missing required key 'clip_norm'"));
  CHECK_THAT(error_of({"vmf", {{"epsilon", text("two")}}}), Contains("mechanism vmf: epsilon must be a number, got 'two'"));
  CHECK_THAT(error_of({"vmf", {{"epsilon", number(2)}, {"beta", number(-1)}}}),
             Contains("beta must be finite and > 0, got -1"));
  CHECK_THAT(error_of({"gaussian", {{"epsilon", number(1)}, {"clip_norm", number(1)}, {"delta", number(1)}}}),
             Contains("delta must be in (0, 1), got 1"));
  CHECK_THAT(error_of({"gaussian", {{"epsilon", number(1)}, {"clip_norm", number(1)}, {"calibration", text("exact")}}}),
             Contains("calibration must be 'classic' or 'analytic', got 'exact'"));
  CHECK_THAT(error_of({"gaussian", {{"epsilon", number(1)}, {"clip_norm", number(1)}, {"calibration", ParamValue{}}}}),
             Contains("mechanism gaussian: calibration must be a string"));
}

TEST_CASE("every key is declared once, with help, and a default or a range", "[mechanisms][registry]") {
  const MechanismRegistry registry = default_mechanism_registry();
  for (const std::string& name : registry.names()) {
    std::set<std::string> seen;
    for (const ParamSpec& spec : registry.entry(name).keys) {
      INFO(name << "." << spec.name);
      CHECK(seen.insert(spec.name).second);
      CHECK(spec.name != "name");
      CHECK_FALSE(spec.help.empty());
      CHECK(spec.kind != ParamSpec::Kind::any);
      CHECK(spec.required == (spec.default_text() == "required"));
      if (spec.kind == ParamSpec::Kind::number) CHECK_FALSE(spec.range_text().empty());
    }
  }
  const auto& gaussian = GaussianParams::table().specs();
  CHECK(gaussian[1].name == "delta");
  CHECK(gaussian[1].default_text() == "1e-05");
  CHECK(gaussian[1].range_text() == "in (0, 1)");
  CHECK(gaussian[2].default_text() == "required");
  CHECK(gaussian[3].range_text() == "classic or analytic");
}

TEST_CASE("a factory declared by key names reads the keys it names", "[mechanisms][registry]") {
  // The form tests use to put a deliberately broken mechanism in a registry (bounds_test.cpp).
  MechanismRegistry registry = default_mechanism_registry();
  registry.add("vmf", {{"epsilon", "beta", "alpha"}, "broken", [](const MechanismParams& p) {
                 return default_mechanism_registry().make({"vmf", {{"epsilon", ParamValue{p.number("epsilon") * 2, {}, ""}},
                                                                   {"beta", ParamValue{p.number_or("beta", 1.0), {}, ""}}}});
               }});
  CHECK(registry.make({"vmf", {{"epsilon", number(2)}}})->epsilon() == 4.0);
  CHECK_THROWS_WITH(registry.make({"vmf", {}}), Contains("missing required key 'epsilon'"));
}
