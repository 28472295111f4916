// `embpriv keys TYPE` prints every key of a type with its kind, default, allowed values and help;
// docs/experiments.md holds the same tables (scripts/update_key_docs.sh writes them), and a test
// fails when the doc drifts from the declarations.
#include "core/source_dir.h"
#include "tests/catch.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "apps/keys_command.h"
#include "experiments/types/registry.h"
#include "tests/test_binary.h"

using namespace embpriv;
using Catch::Matchers::Contains;

TEST_CASE("embpriv keys TYPE lists the type's keys, then the common ones", "[apps]") {
  const Outcome inversion = run_binary("keys inversion");
  CHECK(inversion.code == 0);
  CHECK_THAT(inversion.output, Contains("inversion: KNN inversion"));
  CHECK_THAT(inversion.output, Contains("data.vocabulary"));
  CHECK_THAT(inversion.output, Contains("stories260k or glove"));
  CHECK_THAT(inversion.output, Contains("attack.k"));
  CHECK_THAT(inversion.output, Contains("in [1, 100]"));
  CHECK_THAT(inversion.output, Contains("guesses kept per token"));
  CHECK_THAT(inversion.output, Contains("common keys (every experiment type)"));
  CHECK_THAT(inversion.output, Contains("seeds"));
  const Outcome markdown = run_binary("keys federated --markdown");
  CHECK(markdown.code == 0);
  CHECK_THAT(markdown.output, Contains("| `dp.clip` | text | `published` | published, parameters or update |"));
  CHECK_THAT(markdown.output, Contains("| `local.learning_rate` | number | `1.0e-3` | > 0 |"));
}

TEST_CASE("embpriv keys with an unknown type gives one error line with the valid types", "[apps]") {
  const Outcome unknown = run_binary("keys inversoin", Capture::errors);
  CHECK(unknown.code == 2);
  std::string valid = "common";
  for (const std::string& name : default_experiment_registry().names()) valid += ", " + name;
  CHECK(unknown.output == "embpriv: error: unknown experiment type 'inversoin'; valid: " + valid + "\n");
}

TEST_CASE("docs/experiments.md's key tables are the declarations' (scripts/update_key_docs.sh)", "[apps]") {
  std::ifstream in(std::filesystem::path(embpriv::source_dir()) / "docs" / "experiments.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  std::vector<std::string> tables = {"common"};
  for (const std::string& name : default_experiment_registry().names()) tables.push_back(name);
  for (const std::string& name : tables) {
    INFO("the key table of " << name << " in docs/experiments.md differs from its declarations; regenerate it with "
                                        "scripts/update_key_docs.sh (it runs embpriv keys " << name << " --markdown)");
    const std::string open = "<!-- keys:" + name + " -->\n", close = "<!-- /keys:" + name + " -->";
    const auto begin = doc.find(open), end = doc.find(close);
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    CHECK(doc.substr(begin + open.size(), end - begin - open.size()) == key_table_markdown(default_experiment_registry(), name));
  }
}
