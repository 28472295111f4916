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

namespace {

// Nested aliases, each level a list of 8 aliases of the previous one: `levels` levels reach 8^levels
// values from a few hundred bytes.
std::string alias_bomb(int levels) {
  std::string yaml = "type: perturbation\na0: &a0 [x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level <= levels; ++level) {
    const std::string previous = "*a" + std::to_string(level - 1);
    yaml += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int k = 0; k < 8; ++k) yaml += (k ? ", " : "") + previous;
    yaml += "]\n";
  }
  return yaml;
}

}  // namespace

TEST_CASE("an alias bomb is refused before any walk over the config", "[engine]") {
  // Six levels reach 8^7 = 2,097,152 values from 400 bytes (ten levels took minutes before the
  // unknown-key error); the fifth level's aliases (line 7) pass the limit.
  const std::string six = alias_bomb(6);
  CHECK(six.size() < 500);
  CHECK_THAT(parse_error(six), Contains("x.yaml line 7: the aliases (*name) reach more than 100000 values"));
  CHECK_THAT(parse_error(alias_bomb(30)), Contains("reach more than 100000 values"));
  // Aliases that reuse a map a few times are fine.
  CHECK(parse_error("type: perturbation\nm: &m {name: vmf, epsilon: 1, beta: 1}\nsweep:\n  mechanism: [*m, *m]\n")
            .empty());
}

TEST_CASE("an alias inside the node it names (a cycle) is refused", "[engine]") {
  CHECK_THAT(parse_error("type: perturbation\nsweep:\n  seeds: &x [1, *x]\n"),
             Contains("x.yaml line 3: an alias inside the node its anchor names (a cycle)"));
}

TEST_CASE("a config of two YAML documents is refused: the second would be ignored", "[engine]") {
  CHECK_THAT(parse_error("type: perturbation\nseeds: 1\n---\nseeds: 3\n"),
             Contains("x.yaml line 3: a second YAML document (after '---'); a config is one document"));
  CHECK_THAT(parse_error("type: perturbation\n---\n"), Contains("a second YAML document"));
  // A document marker at the start, or an end marker, is one document.
  CHECK(parse_error("---\ntype: perturbation\n...\n").empty());
}

TEST_CASE("an alias bomb in a command-line override is refused", "[engine]") {
  ConfigDocument document = parse_config_text("type: perturbation\n", "x.yaml");
  std::string value = "[&a [x, x, x, x, x, x, x, x]";
  for (int level = 1; level <= 6; ++level) {
    value += ", &a" + std::to_string(level) + " [";
    for (int k = 0; k < 8; ++k) value += (k ? ", *a" : "*a") + (level == 1 ? std::string() : std::to_string(level - 1));
    value += "]";
  }
  value += "]";
  CHECK_THROWS_WITH(apply_overrides(document, {"data.x=" + value}, [](const std::string&) { return false; }),
                    Contains("command line 'data.x=") && Contains("reach more than 100000 values"));
}
