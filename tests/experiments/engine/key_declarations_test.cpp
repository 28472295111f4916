// Every config key is declared once: a path that several experiment types declare has one
// kind, one default and one allowed range or choice list in all of them (experiments/types/
// shared/data_keys.h holds those declarations), except the few listed below, which differ on
// purpose, each for the reason given.
#include "tests/catch.h"

#include <map>
#include <set>
#include <sstream>

#include "experiments/types/registry.h"

using namespace embpriv;

namespace {

// Paths declared differently by several types on purpose, and why.
const std::map<std::string, std::string> kDifferOnPurpose = {
    {"mechanism",
     "each type's default mechanism is the one its experiment studies: vMF (Algorithm 1 or exact) for the "
     "theory checks, the perturbation sweep and the inversion attack; the Gaussian mechanism for the audit "
     "and membership inference"},
    {"data.dim",
     "perturbation and bounds default to the vMF paper's d = 4096; the audit draws 2 x audit.trials outputs "
     "of two inputs per point and defaults to a cheap d = 16, bounded by 65536 to keep a point's memory small"},
    {"data.samples",
     "both default to 20,000 inputs; bounds needs at least 100 for the normal approximation of its interval "
     "checks (docs/bounds.md), while perturbation only averages and takes any count >= 2"},
    {"data.glove_words",
     "inversion attacks against every GloVe word (0: all 341,479, the vMF paper's KNN attack); obfuslm "
     "clusters the first 50,000 (EmbedCluster is quadratic in the rows); mia encodes sentences only and "
     "keeps the first 100,000 words"},
    {"dp.delta",
     "federated: 0 means 1/|S|, which needs the data the run loads; the accountant loads no data, so its "
     "delta is given: 0.0025 = 1/400, |S| at the federated defaults (docs/privateai.md), and 0 is refused"},
    {"attack.shadows",
     "mia trains 16 cheap shadow logistic regressions by default (LiRA needs 2, RMIA 1: >= 1); a federated "
     "shadow is a whole federation run, so federated defaults to 2, and 0 (the loss attack only) is allowed"},
};

struct Declaration {
  std::string type;
  ConfigKey key;
};

// What must agree between two declarations of one path: its kind, its default as written and
// what it allows.
std::string signature(const ConfigKey& key) {
  return std::string(kind_name(key.kind)) + " | default " + key.default_yaml + " | allowed " + key.allowed();
}

// Every declaration of every experiment type's own keys, by path.
std::map<std::string, std::vector<Declaration>> declarations_by_path() {
  std::map<std::string, std::vector<Declaration>> by_path;
  const ExperimentRegistry& types = default_experiment_registry();
  for (const std::string& name : types.names()) {
    for (const ConfigKey& key : types.find(name).keys()) by_path[key.path].push_back({name, key});
  }
  return by_path;
}

// The paths whose declarations disagree (outside kDifferOnPurpose), with every declaration.
std::string disagreements(const std::map<std::string, std::vector<Declaration>>& by_path) {
  std::ostringstream out;
  for (const auto& [path, declared] : by_path) {
    if (kDifferOnPurpose.count(path)) continue;
    std::set<std::string> signatures;
    for (const Declaration& d : declared) signatures.insert(signature(d.key));
    if (signatures.size() < 2) continue;
    out << path << " is declared differently:\n";
    for (const Declaration& d : declared) out << "  " << d.type << ": " << signature(d.key) << "\n";
  }
  return out.str();
}

}  // namespace

TEST_CASE("a path several experiment types declare has one kind, default and range in all of them",
          "[config][keys]") {
  const auto by_path = declarations_by_path();
  // The registry holds every type; a path shared by several is what this test is about.
  REQUIRE(by_path.size() > 100);
  std::size_t shared = 0;
  for (const auto& entry : by_path) shared += entry.second.size() > 1 ? 1 : 0;
  CHECK(shared >= 15);
  const std::string problems = disagreements(by_path);
  INFO(problems);
  CHECK(problems.empty());
}

TEST_CASE("each path listed as differing on purpose is declared by several types, and differently",
          "[config][keys]") {
  // A stale entry (the types agree again, or only one declares the path) is removed from the list.
  const auto by_path = declarations_by_path();
  for (const auto& [path, reason] : kDifferOnPurpose) {
    INFO(path << ": " << reason);
    REQUIRE(by_path.count(path) == 1);
    const std::vector<Declaration>& declared = by_path.at(path);
    CHECK(declared.size() >= 2);
    std::set<std::string> signatures;
    for (const Declaration& d : declared) signatures.insert(signature(d.key));
    CHECK(signatures.size() >= 2);
  }
}

TEST_CASE("the declaration check finds a path declared with another default", "[config][keys]") {
  // Test of the test: a copy of obfuslm's attack.k with another default, as a second type would
  // declare it, is reported with both declarations.
  auto by_path = declarations_by_path();
  REQUIRE(by_path.count("attack.k") == 1);
  Declaration planted = by_path.at("attack.k").front();
  planted.type = "planted";
  planted.key.default_yaml = "6";
  by_path.at("attack.k").push_back(planted);
  const std::string problems = disagreements(by_path);
  CHECK(problems.find("attack.k is declared differently") != std::string::npos);
  CHECK(problems.find("planted: integer | default 6") != std::string::npos);
  // And another kind.
  by_path = declarations_by_path();
  planted = by_path.at("rounds").front();
  planted.type = "planted";
  planted.key.kind = KeyKind::number;
  by_path.at("rounds").push_back(planted);
  CHECK(disagreements(by_path).find("rounds is declared differently") != std::string::npos);
}
