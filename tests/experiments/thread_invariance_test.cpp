// One result per seed, whatever the thread count (docs/performance.md, "One result per seed"):
// a small config of every experiment type, run by the real binary at `--threads 1` and
// `--threads 2`, gives the same /table and /curves, bit for bit (the wall times live under
// /timing and are left out). The configs are cut down to a few seconds each, but each still runs
// the type's parallel work: the perturbation mechanisms over many rows, KNN and learned
// inversion, ObfusLM's clustering, the audit's trials, the membership attacks' shadow models,
// the federated Transformer's training under every method (PrivateAI's distillation, DP
// clipping and noise, DP-FTRL, Robust-DPFL, FAFL, central), the accountant and the theory
// checks of `bounds`. Before the classifier's layer norm was made thread-invariant
// (models/transformer_encoder.h) the federated table differed.
#include "tests/catch.h"

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/source_dir.h"
#include "data/tables/data_paths.h"
#include "experiments/results/results_table.h"
#include "tests/test_binary.h"
#include "tests/test_tables.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

struct TypeConfig {
  std::string type;
  std::string yaml;       // the config's text, or
  std::string file;       // a config of the source tree,
  std::string overrides;  // run with these overrides
};

const std::vector<TypeConfig> kConfigs = {
    {"perturbation", R"(type: perturbation
data: {dim: 64, samples: 3000, text_fraction: 0.5}
sweep:
  mechanism:
    - {name: vmf_tangent, epsilon: 2, beta: 1, alpha: 0.5}
    - {name: vmf, epsilon: 2, beta: 1, alpha: 0.5}
    - {name: gaussian, epsilon: 2, delta: 1.0e-5, clip_norm: 1, alpha: 0.5}
)", "", ""},
    {"inversion", R"(type: inversion
data: {max_sentences: 20}
attack: {learned: true, learned_epochs: 1}
utility: {train_sentences: [TRAIN]}
language_model: {texts: 1, tokens: 8}
mechanism: {name: vmf, epsilon: 30, beta: 1}
)", "", ""},
    {"obfuslm", R"(type: obfuslm
data: {vocabulary: stories260k, max_sentences: 10}
language_model: {texts: 1, tokens: 8, generate: 6}
attack: {anonymity_clusters: 10, anonymity_trials: 100}
obfuscation: {k: 10, epsilon: 1}
)", "", ""},
    {"audit", R"(type: audit
data: {dim: 4}
audit: {trials: 5000}
sweep:
  mechanism:
    - {name: vmf, epsilon: 2, beta: 1}
    - {name: gaussian, epsilon: 2, delta: 1.0e-5, clip_norm: 1}
)", "", ""},
    {"mia", R"(type: mia
attack: {shadows: 4}
mechanism: {name: gaussian, epsilon: 10, delta: 1.0e-5, clip_norm: 8}
)", "", ""},
    // Every method; LiRA's shadows on the central row only. Before the classifier's layer norm
    // was made thread-invariant, 5 of these 7 rows differed at 2 threads (final_local_loss).
    {"federated", R"(type: federated
rounds: 2
clients: 3
local: {epochs: 3}
data: {candidate_units: 80, proxy_units: 60, public_units: 60, test_units: 60}
attack: {shadows: 0}
sweep:
  any_of:
    - method: [privateai, fedavg, fedadam, dp_ftrl, robust_dpfl, fafl]
    - method: [central]
      attack.shadows: [2]
)", "", ""},
    {"accountant", R"(type: accountant
dp: {delta: 0.0025}
sweep:
  dp.epsilon: [0.1, 10]
)", "", ""},
    {"bounds", "", "configs/bounds.yaml", " sweep.data.dim=[64] data.samples=2000"},
};

// The first 150 of the Amazon review sentences (real text, 0.15 of the file): the learned
// inversion's training set, small enough for a test.
std::string write_train_sentences(const TempDir& dir) {
  std::ifstream in(resolve_data_path("sentiment/amazon.json"));
  const nlohmann::json all = nlohmann::json::parse(in);
  REQUIRE(all.size() >= 150);
  const std::string path = dir / "amazon150.json";
  std::ofstream(path) << nlohmann::json(std::vector<nlohmann::json>(all.begin(), all.begin() + 150)).dump();
  return path;
}

}  // namespace

TEST_CASE("every experiment type gives the same table at 1 and 2 threads", "[engine]") {
  if (std::thread::hardware_concurrency() < 2) {
    WARN("one CPU: --threads 2 is refused on this machine, nothing to compare");
    return;
  }
  TempDir dir("embpriv_thread_invariance_test");
  for (const TypeConfig& c : kConfigs) {
    INFO("type " << c.type);
    std::string config;
    if (c.file.empty()) {
      config = dir / (c.type + ".yaml");
      std::string yaml = c.yaml;
      if (const auto at = yaml.find("TRAIN"); at != std::string::npos) yaml.replace(at, 5, write_train_sentences(dir));
      std::ofstream(config) << yaml;
    } else {
      config = std::string(source_dir()) + "/" + c.file;
    }
    ResultsTable tables[2];
    for (int threads : {1, 2}) {
      const std::string out = dir / (c.type + "." + std::to_string(threads) + ".h5");
      const Outcome run = run_binary("-q run " + config + c.overrides + " --threads " + std::to_string(threads) +
                                     " --no-plot --overwrite --out " + out);
      INFO(run.output);
      REQUIRE(run.code == 0);
      tables[threads - 1] = read_results_h5(out);
    }
    REQUIRE(tables[0].rows() >= 1);
    CHECK(table_difference(tables[0], tables[1]) == "");
  }
}
