// A config document as the user wrote it: a key given twice in one map is refused with its line.
#include "tests/catch.h"

#include <string>

#include "experiments/engine/config_document.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

std::string parse_error(const std::string& yaml) {
  try {
    parse_config_text(yaml, "x.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a key given twice at the top of a config is refused with both lines", "[engine]") {
  CHECK_THAT(parse_error("type: perturbation\nseeds: 2\nseeds: 3\n"),
             Contains("x.yaml line 3: duplicate key 'seeds' (first given at x.yaml line 2)"));
}

TEST_CASE("a key given twice inside a map, a flow map or a sweep list is refused", "[engine]") {
  CHECK_THAT(parse_error("type: perturbation\nmechanism:\n  name: vmf\n  epsilon: 1\n  epsilon: 2\n"),
             Contains("x.yaml line 5: duplicate key 'epsilon'"));
  CHECK_THAT(parse_error("type: perturbation\nmechanism: {name: vmf, epsilon: 1, epsilon: 2}\n"),
             Contains("x.yaml line 2: duplicate key 'epsilon'"));
  CHECK_THAT(parse_error("type: perturbation\nsweep:\n  mechanism:\n    - {name: vmf, name: gaussian}\n"),
             Contains("x.yaml line 4: duplicate key 'name'"));
  CHECK_THAT(parse_error("type: perturbation\nsweep:\n  mechanism.epsilon: [1]\n  mechanism.epsilon: [2]\n"),
             Contains("x.yaml line 4: duplicate key 'mechanism.epsilon'"));
}

TEST_CASE("a key given twice in an override's value is refused, naming the override", "[engine]") {
  ConfigDocument document = parse_config_text("type: perturbation\n", "x.yaml");
  CHECK_THROWS_WITH(apply_overrides(document, {"mechanism={name: vmf, name: gaussian}"},
                                    [](const std::string&) { return false; }),
                    Contains("command line 'mechanism={name: vmf, name: gaussian}': duplicate key 'name'"));
}

TEST_CASE("the same key in different maps, and in list items, is fine", "[engine]") {
  CHECK(parse_error("type: perturbation\nmechanism: {name: vmf, epsilon: 1}\ndata: {name: x, epsilon: 2}\n"
                    "sweep:\n  mechanism:\n    - {name: vmf}\n    - {name: gaussian}\n")
            .empty());
}

// Found by fuzz/config_fuzz: a list override into a config whose sweep is a scalar threw
// yaml-cpp's BadSubscript (an internal error) instead of naming the problem.
TEST_CASE("a sweeping override into a config whose sweep is not a map is refused, naming the override", "[engine]") {
  for (const char* text : {"sweep: 5\n", "sweep: [a, b]\n"}) {
    ConfigDocument document = parse_config_text(text, "x.yaml");
    CHECK_THROWS_WITH(apply_overrides(document, {"data.dim=[8]"}, [](const std::string&) { return false; }),
                      Contains("command line 'data.dim=[8]': the config's sweep block is not a map"));
  }
}
